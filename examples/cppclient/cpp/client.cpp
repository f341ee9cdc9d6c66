// client.cpp: a C++ client of the example protocol, built on net.h (the
// header bitpack gen wrote from net.go) and the serialize library's
// serialize.h. It writes a snapshot, seals it as bitpack.Seal does and
// prints the packet in hex (a Go server opens it with bitpack.Open and
// reads it with bitpack.Unmarshal), then opens and reads it back.
//
//   g++ -std=c++11 -I .. -I /path/to/serialize client.cpp -o client

#include <stdio.h>
#include <string.h>

#include "serialize.h"
#include "net.h"

static const uint32_t ProtocolId = 0x47414d45u ^ Snapshot_fingerprint;

int main()
{
    // Generated structs are plain data: zero them, then fill them in.
    Snapshot snapshot;
    memset( &snapshot, 0, sizeof snapshot );
    snapshot.Tick = 42;
    snapshot.Players_count = 2;
    Player & ada = snapshot.Players[0];
    ada.ID = 7;
    ada.Health = 1000;
    ada.Pos.Y = -1024.0f;
    ada.Pos.Z = 1024.0f;
    strcpy( ada.Name, "ada" );
    ada.Alive = true;
    Player & bob = snapshot.Players[1];
    bob.ID = 999;
    strcpy( bob.Name, "bob" );

    // serialize's WriteStream wants a buffer size that is a multiple of 8.
    uint8_t payload[256];
    serialize::WriteStream writer( payload, sizeof payload );
    if ( !snapshot.Serialize( writer ) )
    {
        fprintf( stderr, "the snapshot breaks its tags\n" );
        return 1;
    }
    writer.Flush();

    // serialize's ReadStream reads up to 8 bytes past the packet's end: keep
    // that much room after it in the buffer.
    uint8_t packet[256 + 4 + 8];
    size_t bytes = bitpack::seal( packet, sizeof packet - 8, ProtocolId, payload, (size_t) writer.GetBytesProcessed() );
    for ( size_t i = 0; i < bytes; i++ )
        printf( "%02x", packet[i] );
    printf( "\n" );

    // Reading: check the CRC, read one Snapshot (charged to the packet's
    // allowances, as Go's Unmarshal charges it), refuse trailing bytes.
    size_t payload_bytes = 0;
    const uint8_t * body = bitpack::open( ProtocolId, packet, bytes, &payload_bytes );
    if ( !body )
    {
        fprintf( stderr, "packet refused: bad CRC or too short\n" );
        return 1;
    }
    Snapshot received;
    serialize::ReadStream reader( body, (int64_t) payload_bytes );  // serialize asserts on a NULL body
    if ( bitpack::read_packet( reader, (int64_t) payload_bytes, received ) != bitpack::ReadResult::ok )
    {
        fprintf( stderr, "packet refused\n" );
        return 1;
    }
    printf( "tick %u: %d players, %s at y=%g\n", received.Tick, received.Players_count, received.Players[0].Name, received.Players[0].Pos.Y );
    return 0;
}
