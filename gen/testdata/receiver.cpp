// The test driver of bitpack::Receiver (gen's TestCPPReceiver): it reads
// commands from standard input, one per line, and answers each on one line
// of standard output.
//
//   packet HEX   read the packet (in a buffer of exactly its size):
//                "OK seq=S ack=A view=HEX" (the view's full encoding) or
//                "REFUSED why seq=S ack=A"
//   reset        reset the receiver: "ack=A"
//   fresh H      replace the receiver by a new one of History H: "ack=A"
//                (the first command; until it, "NO RECEIVER")
//   allocs       "allocs N": the allocations made inside read so far
//
// It also checks what the answers cannot show: after an accepted packet,
// view(seq) holds the view read ("VIEW DIFFERS" otherwise); after a
// refused one, the caller's value is byte for byte what it was ("OUT
// CHANGED" otherwise).
//
// The Histories come from the build (-DHISTORIES="EACH(2) EACH(16)": one
// bitpack::Receiver<World, H> instantiated for each), the view type World
// from the generated receiver.h.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <new>
#include "minserialize.h"
#include "receiver.h"

#ifndef HISTORIES
#error "build with -DHISTORIES=\"EACH(2) EACH(16)\""
#endif

// The driver counts the allocations made inside read (counting_new.h).
#include "counting_new.h"

// AnyReceiver is a bitpack::Receiver<World, H> of any of the Histories
// built, behind one interface.
struct AnyReceiver
{
    virtual ~AnyReceiver() {}
    virtual bool read( const uint8_t * packet, size_t bytes, World & out, uint16_t & seq ) = 0;
    virtual uint16_t ack() const = 0;
    virtual bitpack::ReceiveResult result() const = 0;
    virtual void reset() = 0;
    virtual const World * view( uint16_t seq ) const = 0;
};

template <int H> struct ReceiverOf : AnyReceiver
{
    bitpack::Receiver<World, H> r;
    bool read( const uint8_t * packet, size_t bytes, World & out, uint16_t & seq ) { return r.read( packet, bytes, out, seq ); }
    uint16_t ack() const { return r.ack(); }
    bitpack::ReceiveResult result() const { return r.result(); }
    void reset() { r.reset(); }
    const World * view( uint16_t seq ) const { return r.view( seq ); }
};

// fresh is a new receiver of History h, or NULL when h is not built.
static AnyReceiver * fresh( long h )
{
#define EACH( H ) \
    if ( h == H ) \
        return new ReceiverOf<H>();
    HISTORIES
#undef EACH
    return NULL;
}

static const char * why( bitpack::ReceiveResult r )
{
    switch ( r )
    {
    case bitpack::ReceiveResult::ok: return "ok";
    case bitpack::ReceiveResult::overflow: return "overflow";
    case bitpack::ReceiveResult::range: return "range";
    case bitpack::ReceiveResult::no_base: return "no_base";
    case bitpack::ReceiveResult::refused: return "refused";
    case bitpack::ReceiveResult::trailing: return "trailing";
    }
    return "?";
}

// encode writes v's full encoding as hex into text (a writer's capacity is
// a multiple of 8 bytes, and its bytes are whole only after Flush).
static bool encode( const World & v, char * text )
{
    static uint8_t buffer[8 * 1024];
    serialize::WriteStream stream( buffer, sizeof buffer );
    if ( !const_cast<World &>( v ).Serialize( stream ) )
        return false;
    stream.Flush();
    const int64_t n = stream.GetBytesProcessed();
    for ( int64_t i = 0; i < n; i++ )
        sprintf( text + 2 * i, "%02x", buffer[i] );
    text[2 * n] = 0;
    return true;
}

int main()
{
    static char line[1 << 16];
    static char text[2][16 * 1024 + 1];
    AnyReceiver * r = NULL;
    World * out = new World();
    World * before = new World();
    while ( fgets( line, sizeof line, stdin ) )
    {
        line[strcspn( line, "\r\n" )] = 0;
        if ( r == NULL && strncmp( line, "fresh ", 6 ) != 0 && strcmp( line, "allocs" ) != 0 )
        {
            printf( "NO RECEIVER\n" );
        }
        else if ( strcmp( line, "reset" ) == 0 )
        {
            r->reset();
            printf( "ack=%u\n", r->ack() );
        }
        else if ( strncmp( line, "fresh ", 6 ) == 0 )
        {
            AnyReceiver * next = fresh( strtol( line + 6, NULL, 10 ) );
            if ( next == NULL )
            {
                printf( "NO HISTORY %s\n", line + 6 );
                continue;
            }
            delete r;
            r = next;
            printf( "ack=%u\n", r->ack() );
        }
        else if ( strcmp( line, "allocs" ) == 0 )
        {
            printf( "allocs %lld\n", allocations );
        }
        else if ( strncmp( line, "packet ", 7 ) == 0 )
        {
            const char * hex = line + 7;
            const size_t n = strlen( hex ) / 2;
            uint8_t * packet = new uint8_t[n == 0 ? 1 : n];
            for ( size_t i = 0; i < n; i++ )
            {
                unsigned int b = 0;
                if ( sscanf( hex + 2 * i, "%2x", &b ) != 1 )
                {
                    puts( "BADHEX" );
                    return 1;
                }
                packet[i] = uint8_t( b );
            }
            memcpy( (void *) before, (const void *) out, sizeof( World ) );
            uint16_t seq = 0xABCD;
            counting_allocations = true;
            const bool ok = r->read( packet, n, *out, seq );
            counting_allocations = false;
            delete [] packet;
            if ( !ok )
            {
                if ( memcmp( (const void *) before, (const void *) out, sizeof( World ) ) != 0 )
                    printf( "OUT CHANGED\n" );
                else
                    printf( "REFUSED %s seq=%u ack=%u\n", why( r->result() ), seq, r->ack() );
                continue;
            }
            const World * held = r->view( seq );
            if ( r->result() != bitpack::ReceiveResult::ok || !encode( *out, text[0] ) || held == NULL || !encode( *held, text[1] ) || strcmp( text[0], text[1] ) != 0 )
            {
                printf( "VIEW DIFFERS\n" );
                continue;
            }
            printf( "OK seq=%u ack=%u view=%s\n", seq, r->ack(), text[0] );
        }
        else
        {
            printf( "BADCOMMAND\n" );
        }
    }
    delete r;
    delete out;
    delete before;
    return 0;
}
