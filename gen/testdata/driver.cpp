// driver.cpp: the C++ side of package gen's cross-language tests.
//
// It includes minserialize.h (bitpack's own test implementation of the
// serialize stream API), hooks.h (the hand-written C++ of the test table's
// hook types), table.h (the header gen.CPP generated for the test table)
// and dispatch.inc (the per-type dispatch and the write cases, generated
// by the Go test). It reads commands from stdin, one per line, and answers
// each with one line:
//
//   R <type> <hex>  read the packet as table type <type>; answer REFUSED,
//                   TRAILING (whole bytes left after the value), or
//                   OK <hex> with the value written back
//   W <case>        build write case <case> and write it: REFUSED or OK <hex>
//   D <hex>         read a Pinned packet and print the bits of V, A and W
//   P <v> <a> <w>   write a Pinned value given as the hex bits of V, A, W
//   Q <hex>         read a QuatProbe packet and print the bits of its
//                   twelve components
//   E <bits>...     write a QuatProbe given as the hex bits of its twelve
//                   components
//   S <id> <hex>    bitpack::seal the payload with protocol id <id> (hex)
//   O <id> <hex>    bitpack::open the packet: REFUSED or OK <payload hex>
//
// Run as "driver delta", it answers the delta corpus instead, whose D and
// E are (the packets of base and value are ones bitpack accepts):
//
//   D <type> <base hex> <delta hex>  apply the delta to base: REFUSED,
//                   TRAILING, or OK <hex> with the result written whole
//   E <type> <base hex> <value hex>  write value's delta against base:
//                   REFUSED or OK <hex>
//
// Built with -DPROBES_ONLY, it includes probes.h (the header gen.CPP
// generated for Pinned and QuatProbe alone) instead of hooks.h and
// table.h, has no dispatch.inc, and answers every command but D, P, Q and
// E with SKIP (all of them, run as "driver delta"): the probes' optimised
// build, which compiles in a few seconds where the table's takes tens.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include "minserialize.h"
#ifdef PROBES_ONLY
#include "probes.h"
#else
#include "hooks.h"
#include "table.h"
#endif

static void print_hex( const uint8_t * p, int64_t n )
{
    static const char digits[] = "0123456789abcdef";
    for ( int64_t i = 0; i < n; i++ )
    {
        putchar( digits[p[i] >> 4] );
        putchar( digits[p[i] & 15] );
    }
    putchar( '\n' );
}

// A packet to read, in a copy of its own with the 8 bytes after it that
// serialize's reader loads (its 8-byte window starts at the byte it reads
// from) and no more, so the sanitizer sees any read past them. They hold
// 0xa5, so a reader that interprets them disagrees with Go.
struct Packet
{
    uint8_t * data;
    int64_t bytes;

    explicit Packet( const std::vector<uint8_t> & p ) : data( new uint8_t[p.size() + 8] ), bytes( (int64_t) p.size() )
    {
        memset( data, 0xa5, p.size() + 8 );
        if ( !p.empty() )
            memcpy( data, p.data(), p.size() );
    }
    ~Packet() { delete [] data; }

private:
    Packet( const Packet & );
    Packet & operator=( const Packet & );
};

// whole_words rounds a write buffer's size up to a multiple of 8 bytes:
// serialize's writer stores whole 8-byte words and asserts on any other
// capacity.
static int64_t whole_words( int64_t bytes ) { return ( bytes + 7 ) / 8 * 8; }

template <typename T> static void write_value( T * v, int64_t most )
{
    const int64_t capacity = whole_words( most );
    std::vector<uint8_t> buffer( (size_t) capacity );
    serialize::WriteStream stream( buffer.data(), capacity );
    if ( !v->Serialize( stream ) )
    {
        puts( "REFUSED" );
        return;
    }
    stream.Flush();
    fputs( "OK ", stdout );
    print_hex( buffer.data(), stream.GetBytesProcessed() );
}

// scratch is a value of type T for one role (0: a read, 1: a delta's
// base, 2: its result), made once and reused by every command: a read
// defines every part of the value its write-back uses, and some table
// types are large (the zero-bit ones hold 255 x 255 x 4096 bytes), which
// allocating, zeroing or faulting in on every command would make the
// whole run's cost.
template <typename T, int role> static T * scratch()
{
    static T * v = new T;
    return v;
}

template <typename T> static void read_packet( const Packet & p )
{
    T * v = scratch<T, 0>();
    serialize::ReadStream stream( p.data, p.bytes );
    switch ( bitpack::read_packet( stream, p.bytes, *v ) )
    {
    case bitpack::ReadResult::ok: write_value( v, p.bytes + 64 ); break;
    case bitpack::ReadResult::refused: puts( "REFUSED" ); break;
    case bitpack::ReadResult::trailing: puts( "TRAILING" ); break;
    }
}

// load reads a packet bitpack accepts (a delta command's base or value).
template <typename T> static bool load( T * v, const Packet & p )
{
    serialize::ReadStream stream( p.data, p.bytes );
    if ( bitpack::read_packet( stream, p.bytes, *v ) == bitpack::ReadResult::ok )
        return true;
    puts( "BADBASE" );
    return false;
}

// apply_delta answers D: the delta applied to base, the result written
// whole. Its size is at most the base's and the delta's together, but for
// alignment padding.
template <typename T> static void apply_delta( const Packet & base_packet, const Packet & delta )
{
    T * base = scratch<T, 1>();
    T * v = scratch<T, 2>();
    if ( load( base, base_packet ) )
    {
        serialize::ReadStream stream( delta.data, delta.bytes );
        switch ( bitpack::read_delta( stream, delta.bytes, *base, *v ) )
        {
        case bitpack::ReadResult::ok: write_value( v, 2 * ( base_packet.bytes + delta.bytes ) + 64 ); break;
        case bitpack::ReadResult::refused: puts( "REFUSED" ); break;
        case bitpack::ReadResult::trailing: puts( "TRAILING" ); break;
        }
    }
}

// write_delta answers E: value's delta against base.
template <typename T> static void write_delta( const Packet & base_packet, const Packet & value_packet )
{
    T * base = scratch<T, 1>();
    T * v = scratch<T, 2>();
    if ( load( base, base_packet ) && load( v, value_packet ) )
    {
        const int64_t capacity = whole_words( 4 * ( base_packet.bytes + value_packet.bytes ) + 64 );
        std::vector<uint8_t> buffer( (size_t) capacity );
        serialize::WriteStream stream( buffer.data(), capacity );
        if ( !v->SerializeDelta( stream, *base ) )
        {
            puts( "REFUSED" );
        }
        else
        {
            stream.Flush();
            fputs( "OK ", stdout );
            print_hex( buffer.data(), stream.GetBytesProcessed() );
        }
    }
}

static void set_f32( float & f, uint32_t bits ) { memcpy( &f, &bits, 4 ); }
static void set_f64( double & f, uint64_t bits ) { memcpy( &f, &bits, 8 ); }
#ifndef PROBES_ONLY
static void set_bytes( void * dst, const char * src, int n ) { memcpy( dst, src, (size_t) n ); }
#endif

static void probe_pinned( const Packet & p )
{
    Pinned v;
    memset( &v, 0, sizeof v );
    serialize::ReadStream stream( p.data, p.bytes );
    if ( !v.Serialize( stream ) )
    {
        puts( "REFUSED" );
        return;
    }
    uint32_t vb, ab;
    uint64_t wb;
    memcpy( &vb, &v.V, 4 );
    memcpy( &ab, &v.A, 4 );
    memcpy( &wb, &v.W, 8 );
    printf( "%08x %08x %016llx\n", vb, ab, (unsigned long long) wb );
}

static void encode_pinned( const char * fields )
{
    unsigned int vb, ab;
    unsigned long long wb;
    if ( sscanf( fields, "%x %x %llx", &vb, &ab, &wb ) != 3 )
    {
        puts( "BADLINE" );
        return;
    }
    Pinned v;
    set_f32( v.V, vb );
    set_f32( v.A, ab );
    set_f64( v.W, wb );
    write_value( &v, 64 );
}

static void probe_quat( const Packet & p )
{
    QuatProbe v;
    memset( &v, 0, sizeof v );
    serialize::ReadStream stream( p.data, p.bytes );
    if ( !v.Serialize( stream ) || !bitpack::whole_packet( stream, p.bytes ) )
    {
        puts( "REFUSED" );
        return;
    }
    uint32_t a[8];
    uint64_t c[4];
    memcpy( a, v.A, 16 );
    memcpy( a + 4, v.B, 16 );
    memcpy( c, v.C, 32 );
    printf( "%08x %08x %08x %08x %08x %08x %08x %08x %016llx %016llx %016llx %016llx\n", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],
        (unsigned long long) c[0], (unsigned long long) c[1], (unsigned long long) c[2], (unsigned long long) c[3] );
}

static void encode_quat( const char * fields )
{
    unsigned int a[8];
    unsigned long long c[4];
    if ( sscanf( fields, "%x %x %x %x %x %x %x %x %llx %llx %llx %llx", a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, a + 7, c, c + 1, c + 2, c + 3 ) != 12 )
    {
        puts( "BADLINE" );
        return;
    }
    QuatProbe v;
    for ( int i = 0; i < 4; i++ )
    {
        set_f32( v.A[i], a[i] );
        set_f32( v.B[i], a[4 + i] );
        set_f64( v.C[i], c[i] );
    }
    write_value( &v, 64 );
}

#ifndef PROBES_ONLY
#include "dispatch.inc"
#endif

static bool hex_to_bytes( const char * s, std::vector<uint8_t> & out )
{
    out.clear();
    size_t n = strlen( s );
    if ( n % 2 != 0 )
        return false;
    for ( size_t i = 0; i < n; i += 2 )
    {
        unsigned int b;
        if ( sscanf( s + i, "%2x", &b ) != 1 )
            return false;
        out.push_back( (uint8_t) b );
    }
    return true;
}

#ifndef PROBES_ONLY
// delta_command answers a D or E line of the delta corpus.
static void delta_command( char command, const std::string & line )
{
    std::vector<std::string> fields;
    size_t start = 0;
    for ( ;; )
    {
        const size_t space = line.find( ' ', start );
        fields.push_back( line.substr( start, space == std::string::npos ? std::string::npos : space - start ) );
        if ( space == std::string::npos )
            break;
        start = space + 1;
    }
    std::vector<uint8_t> first, second;
    if ( fields.size() != 4 || !hex_to_bytes( fields[2].c_str(), first ) || !hex_to_bytes( fields[3].c_str(), second ) )
    {
        puts( "BADLINE" );
        return;
    }
    const Packet a( first ), b( second );
    if ( command == 'D' )
        dispatch_delta_read( atoi( fields[1].c_str() ), a, b );
    else
        dispatch_delta_write( atoi( fields[1].c_str() ), a, b );
}

static void frame( char command, const char * rest, std::vector<uint8_t> & packet )
{
    unsigned int id;
    const char * hex = strchr( rest, ' ' );
    if ( sscanf( rest, "%x", &id ) != 1 || !hex )
    {
        puts( "BADLINE" );
        return;
    }
    std::string text( hex + 1 );
    if ( text == "-" )
        text.clear();
    if ( !hex_to_bytes( text.c_str(), packet ) )
    {
        puts( "BADLINE" );
        return;
    }
    if ( command == 'S' )
    {
        std::vector<uint8_t> sealed( packet.size() + 4 );
        size_t n = bitpack::seal( sealed.data(), sealed.size(), id, packet.data(), packet.size() );
        fputs( "OK ", stdout );
        print_hex( sealed.data(), (int64_t) n );
        return;
    }
    size_t payload_bytes = 0;
    const uint8_t * payload = bitpack::open( id, packet.data(), packet.size(), &payload_bytes );
    if ( !payload )
    {
        puts( "REFUSED" );
        return;
    }
    fputs( "OK ", stdout );
    print_hex( payload, (int64_t) payload_bytes );
}

#endif

int main( int argc, char ** argv )
{
    const bool deltas = argc > 1 && strcmp( argv[1], "delta" ) == 0;
    std::string line;
    std::vector<uint8_t> packet;
    int c;
    while ( ( c = getchar() ) != EOF )
    {
        if ( c != '\n' )
        {
            line.push_back( (char) c );
            continue;
        }
        char command = line.empty() ? '?' : line[0];
        const char * rest = line.c_str() + ( line.size() > 2 ? 2 : line.size() );
#ifdef PROBES_ONLY
        if ( deltas || command == 'R' || command == 'W' || command == 'S' || command == 'O' )
        {
            puts( "SKIP" );
        }
#else
        if ( command == 'R' )
        {
            int type = atoi( rest );
            const char * hex = strchr( rest, ' ' );
            if ( !hex || !hex_to_bytes( hex + 1, packet ) )
            {
                puts( "BADLINE" );
            }
            else
            {
                dispatch_read( type, Packet( packet ) );
            }
        }
        else if ( command == 'W' )
        {
            dispatch_write( atoi( rest ) );
        }
        else if ( deltas && ( command == 'D' || command == 'E' ) )
        {
            delta_command( command, line );
        }
#endif
        else if ( command == 'D' && hex_to_bytes( rest, packet ) )
        {
            probe_pinned( Packet( packet ) );
        }
        else if ( command == 'P' )
        {
            encode_pinned( rest );
        }
        else if ( command == 'Q' && hex_to_bytes( rest, packet ) )
        {
            probe_quat( Packet( packet ) );
        }
        else if ( command == 'E' )
        {
            encode_quat( rest );
        }
#ifndef PROBES_ONLY
        else if ( command == 'S' || command == 'O' )
        {
            frame( command, rest, packet );
        }
#endif
        else
        {
            puts( "BADLINE" );
        }
        line.clear();
    }
    return 0;
}
