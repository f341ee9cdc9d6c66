    // CRC framing, as bitpack.Seal and bitpack.Open: a packet is the CRC32
    // (IEEE) of the protocol id's 4 little-endian bytes, four zero bytes and
    // the payload, stored little-endian, then the payload. The id is never
    // sent. A CRC catches accidents and foreign traffic, not attackers.
    inline uint32_t crc32( uint32_t crc, const uint8_t * p, size_t n )
    {
        crc = ~crc;
        for ( size_t i = 0; i < n; i++ )
        {
            crc ^= p[i];
            for ( int k = 0; k < 8; k++ )
                crc = ( crc >> 1 ) ^ ( 0xEDB88320u & ( 0u - ( crc & 1u ) ) );
        }
        return ~crc;
    }

    inline uint32_t frame_crc( uint32_t protocol_id, const uint8_t * payload, size_t bytes )
    {
        const uint8_t header[8] = { uint8_t( protocol_id ), uint8_t( protocol_id >> 8 ), uint8_t( protocol_id >> 16 ), uint8_t( protocol_id >> 24 ), 0, 0, 0, 0 };
        return crc32( crc32( 0, header, 8 ), payload, bytes );
    }

    // seal writes the framed packet to packet (payload may already sit at
    // packet + 4) and returns its size, or 0 when capacity is too small.
    inline size_t seal( uint8_t * packet, size_t capacity, uint32_t protocol_id, const uint8_t * payload, size_t bytes )
    {
        if ( capacity < 4 || capacity - 4 < bytes )
            return 0;
        const uint32_t crc = frame_crc( protocol_id, payload, bytes );
        memmove( packet + 4, payload, bytes );
        for ( int i = 0; i < 4; i++ )
            packet[i] = uint8_t( crc >> ( 8 * i ) );
        return bytes + 4;
    }

    // open checks a framed packet and returns its payload (inside packet),
    // or NULL when it is shorter than 4 bytes or its CRC does not match.
    inline const uint8_t * open( uint32_t protocol_id, const uint8_t * packet, size_t bytes, size_t * payload_bytes )
    {
        if ( bytes < 4 )
            return NULL;
        const uint32_t stored = uint32_t( packet[0] ) | uint32_t( packet[1] ) << 8 | uint32_t( packet[2] ) << 16 | uint32_t( packet[3] ) << 24;
        if ( stored != frame_crc( protocol_id, packet + 4, bytes - 4 ) )
            return NULL;
        *payload_bytes = bytes - 4;
        return packet + 4;
    }
}

// The macros return false from the Serialize function that uses them, as
// serialize's own do.
#define bitpack_unsigned_bits( stream, value, bits ) do { if ( !bitpack::unsigned_bits( stream, value, bits ) ) return false; } while (0)
#define bitpack_signed_bits( stream, value, bits ) do { if ( !bitpack::signed_bits( stream, value, bits ) ) return false; } while (0)
#define bitpack_unsigned_range( stream, value, min, max ) do { if ( !bitpack::unsigned_range( stream, value, min, max ) ) return false; } while (0)
#define bitpack_signed_range( stream, value, min, max ) do { if ( !bitpack::signed_range( stream, value, min, max ) ) return false; } while (0)
#define bitpack_compressed_float( stream, value, min, max, res ) do { if ( !bitpack::compressed_float( stream, value, min, max, res, false ) ) return false; } while (0)
#define bitpack_compressed_float_clamp( stream, value, min, max, res ) do { if ( !bitpack::compressed_float( stream, value, min, max, res, true ) ) return false; } while (0)
#define bitpack_compressed_double( stream, value, min, max, res ) do { if ( !bitpack::compressed_double( stream, value, min, max, res, false ) ) return false; } while (0)
#define bitpack_compressed_double_clamp( stream, value, min, max, res ) do { if ( !bitpack::compressed_double( stream, value, min, max, res, true ) ) return false; } while (0)
#define bitpack_signed_units( stream, value, min, max, bits, flip, unit, clamp ) do { if ( !bitpack::signed_units( stream, value, min, max, bits, flip, unit, clamp ) ) return false; } while (0)
#define bitpack_unsigned_units( stream, value, min, max, bits, unit, clamp ) do { if ( !bitpack::unsigned_units( stream, value, min, max, bits, unit, clamp ) ) return false; } while (0)
#define bitpack_string( stream, string, maxlen ) do { if ( !bitpack::text( stream, string, maxlen ) ) return false; } while (0)
#define bitpack_int_relative( stream, previous, current ) do { if ( !bitpack::int_relative( stream, previous, current ) ) return false; } while (0)
#define bitpack_check( stream, hash ) do { if ( !bitpack::check( stream, hash ) ) return false; } while (0)

