// bench.cpp: the C++ part of gen's performance report (perf_test.go). The
// test puts before it the serialize header, the generated bench.h, the
// reference packet and what the header is. It reads and writes the packet
// n times each way and prints one row of the report: ns per packet.

#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double seconds_since( std::chrono::steady_clock::time_point start )
{
    return std::chrono::duration<double>( std::chrono::steady_clock::now() - start ).count();
}

// input is the packet with 8 bytes of room after it: serialize's reader
// reads ahead a word at a time.
static uint8_t input[sizeof packet + 8];

// read decodes the packet into v, as bitpack.Unmarshal does, or exits.
static void read( BenchPacket & v )
{
    serialize::ReadStream stream( input, sizeof packet );
    if ( bitpack::read_packet( stream, sizeof packet, v ) != bitpack::ReadResult::ok )
    {
        fprintf( stderr, "the reference packet was refused\n" );
        exit( 1 );
    }
}

int main( int argc, char ** argv )
{
    const long n = argc > 1 ? atol( argv[1] ) : 1000000;
    static uint8_t buffer[256];
    memcpy( input, packet, sizeof packet );
    BenchPacket v;
    memset( &v, 0, sizeof v );
    read( v );
    {
        serialize::WriteStream stream( buffer, sizeof buffer );
        if ( !v.Serialize( stream ) || ( stream.Flush(), stream.GetBytesProcessed() != int64_t( sizeof packet ) ) || memcmp( buffer, packet, sizeof packet ) != 0 )
        {
            fprintf( stderr, "the packet written back differs\n" );
            return 1;
        }
    }
    volatile uint32_t sink = 0;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    for ( long i = 0; i < n; i++ )
    {
        read( v );
        sink = sink + v.Health;
    }
    const double read_ns = seconds_since( start ) * 1e9 / n;
    start = std::chrono::steady_clock::now();
    for ( long i = 0; i < n; i++ )
    {
        serialize::WriteStream stream( buffer, sizeof buffer );
        if ( !v.Serialize( stream ) )
            return 1;
        stream.Flush();
        sink = sink + buffer[i & 127];
    }
    const double write_ns = seconds_since( start ) * 1e9 / n;
    printf( "| C++ (g++ -O2, %s; fixed-size struct, no allocation) | %.0f | %.0f | %.0f | %.0f |\n", what, read_ns, read_ns, write_ns, write_ns );
    return 0;
}
