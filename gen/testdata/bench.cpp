// bench.cpp: the C++ part of gen's performance report (perf_test.go). The
// test puts before it the serialize header, the generated bench.h, the
// reference packet and what the header is, and writes hostile.inc beside
// it. It reads and writes the packet n times each way and prints one row
// of the report: ns per packet. Run as "bench hostile rounds", it prints
// the hostile packets' rows instead (perf_hostile_test.go).

#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

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

// load_base reads a delta's base (a packet Go accepts) once, for the
// hostile cases.
template <typename T> static bool load_base( const uint8_t * p, int64_t bytes, T & v )
{
    serialize::ReadStream stream( p, bytes );
    return bitpack::read_packet( stream, bytes, v ) == bitpack::ReadResult::ok;
}

#include "hostile.inc"

// thread_seconds is this thread's CPU time: the machine is shared.
static double thread_seconds()
{
    timespec ts;
    clock_gettime( CLOCK_THREAD_CPUTIME_ID, &ts );
    return double( ts.tv_sec ) + double( ts.tv_nsec ) * 1e-9;
}

// hostile prints a row for each hostile case: its cost as a multiple of a
// decode of the snapshot, the median of rounds alternating k of each,
// timed in this thread's CPU time.
static int hostile( int rounds )
{
    const int k = 16;
    double snap = 0;
    for ( const HostileCase & c : hostile_cases )
    {
        const bool accepted = c.read();
        std::vector<double> ratios;
        for ( int r = 0; r < rounds; r++ )
        {
            double start = thread_seconds();
            for ( int i = 0; i < k; i++ )
            {
                if ( !read_snapshot() )
                    return 1;
            }
            const double mid = thread_seconds();
            for ( int i = 0; i < k; i++ )
                c.read();
            const double end = thread_seconds();
            ratios.push_back( ( end - mid ) / ( mid - start ) );
            snap += ( mid - start ) / k;
        }
        std::sort( ratios.begin(), ratios.end() );
        printf( "| C++ | %s | %d | %s | %.2f (%.2f-%.2f) |\n", c.name, c.bytes, accepted ? "accepted" : "refused", ratios[ratios.size() / 2], ratios.front(), ratios.back() );
    }
    printf( "| C++ | the snapshot | %d | %.0f ns a decode | 1 |\n", int( sizeof snapshot_packet - 8 ), snap * 1e9 / ( rounds * ( sizeof hostile_cases / sizeof hostile_cases[0] ) ) );
    return 0;
}

int main( int argc, char ** argv )
{
    if ( argc > 2 && strcmp( argv[1], "hostile" ) == 0 )
        return hostile( atoi( argv[2] ) );
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
