// minserialize.h: bitpack's own minimal implementation of the serialize
// stream API, for testing generated headers without the serialize library.
// Written for bitpack from the wire format it implements (docs/wire.md's
// Primitives, package bitio): bits are packed least significant first, the packet is the
// little-endian bytes of that bit string, align pads with zero bits to a
// byte boundary (a reader refuses non-zero padding), int(v, min, max) is
// v - min in bits_required(min, max) bits (a reader refuses offsets above
// max - min), bytes are aligned first.
//
// It has the names generated code relies on: the classes
// serialize::WriteStream and serialize::ReadStream with IsWriting and
// IsReading, and the macros serialize_bits, serialize_bool, serialize_int,
// serialize_uint64, serialize_float, serialize_double, serialize_bytes,
// serialize_align and serialize_object, which return false from the
// enclosing function when the stream refuses. It is deliberately strict:
// bit by bit, no read past the last byte, and any misuse the real library
// only asserts on (a value wider than its bits, an integer outside its
// range on write, bad arguments) aborts the program, so a test sees every
// place where generated code leaves a check to the stream.

#ifndef BITPACK_MINSERIALIZE_H
#define BITPACK_MINSERIALIZE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace serialize
{
    inline void misuse( const char * what )
    {
        fprintf( stderr, "minserialize: misuse: %s\n", what );
        abort();
    }

    inline int span_bits( uint32_t span )
    {
        int n = 0;
        for ( ; span != 0; span >>= 1 )
            n++;
        return n;
    }

    class WriteStream
    {
    public:
        enum { IsWriting = 1 };
        enum { IsReading = 0 };

        // buffer is zeroed: bits are or-ed in.
        WriteStream( uint8_t * buffer, int64_t bytes ) : m_buffer( buffer ), m_capacity( bytes * 8 ), m_bits( 0 )
        {
            memset( buffer, 0, (size_t) bytes );
        }

        bool SerializeBits( uint32_t value, int bits )
        {
            if ( bits < 1 || bits > 32 )
                misuse( "SerializeBits: bits outside 1..32" );
            if ( bits < 32 && ( value >> bits ) != 0 )
                misuse( "SerializeBits: value wider than its bits" );
            if ( m_bits + bits > m_capacity )
                misuse( "SerializeBits: buffer full" );
            for ( int i = 0; i < bits; i++ )
            {
                if ( ( value >> i ) & 1 )
                    m_buffer[( m_bits + i ) >> 3] |= uint8_t( 1 << ( ( m_bits + i ) & 7 ) );
            }
            m_bits += bits;
            return true;
        }

        bool SerializeInteger( int32_t value, int32_t min, int32_t max )
        {
            if ( !( min < max ) || value < min || value > max )
                misuse( "SerializeInteger: value outside [min, max], or min >= max" );
            const uint32_t span = uint32_t( max ) - uint32_t( min );
            return SerializeBits( uint32_t( value ) - uint32_t( min ), span_bits( span ) );
        }

        bool SerializeAlign()
        {
            const int pad = int( ( 8 - m_bits % 8 ) % 8 );
            return pad == 0 || SerializeBits( 0, pad );
        }

        bool SerializeBytes( const uint8_t * data, int64_t bytes )
        {
            if ( bytes < 0 )
                misuse( "SerializeBytes: negative length" );
            SerializeAlign();
            if ( m_bits + bytes * 8 > m_capacity )
                misuse( "SerializeBytes: buffer full" );
            if ( bytes > 0 )
                memcpy( m_buffer + m_bits / 8, data, (size_t) bytes );
            m_bits += bytes * 8;
            return true;
        }

        void Flush() {}
        int64_t GetBitsProcessed() const { return m_bits; }
        int64_t GetBytesProcessed() const { return ( m_bits + 7 ) / 8; }

    private:
        uint8_t * m_buffer;
        int64_t m_capacity;
        int64_t m_bits;
    };

    class ReadStream
    {
    public:
        enum { IsWriting = 0 };
        enum { IsReading = 1 };

        ReadStream( const uint8_t * buffer, int64_t bytes ) : m_buffer( buffer ), m_size( bytes * 8 ), m_bits( 0 ) {}

        bool SerializeBits( uint32_t & value, int bits )
        {
            if ( bits < 1 || bits > 32 )
                misuse( "SerializeBits: bits outside 1..32" );
            if ( m_bits + bits > m_size )
                return false;
            uint32_t v = 0;
            for ( int i = 0; i < bits; i++ )
            {
                const uint32_t bit = ( m_buffer[( m_bits + i ) >> 3] >> ( ( m_bits + i ) & 7 ) ) & 1;
                v |= bit << i;
            }
            m_bits += bits;
            value = v;
            return true;
        }

        bool SerializeInteger( int32_t & value, int32_t min, int32_t max )
        {
            if ( !( min < max ) )
                misuse( "SerializeInteger: min >= max" );
            const uint32_t span = uint32_t( max ) - uint32_t( min );
            uint32_t offset = 0;
            if ( !SerializeBits( offset, span_bits( span ) ) || offset > span )
                return false;
            value = int32_t( int64_t( min ) + int64_t( offset ) );
            return true;
        }

        bool SerializeAlign()
        {
            const int pad = int( ( 8 - m_bits % 8 ) % 8 );
            uint32_t zero = 0;
            return pad == 0 || ( SerializeBits( zero, pad ) && zero == 0 );
        }

        bool SerializeBytes( uint8_t * data, int64_t bytes )
        {
            if ( bytes < 0 )
                misuse( "SerializeBytes: negative length" );
            if ( !SerializeAlign() || bytes > ( m_size - m_bits ) / 8 )
                return false;
            if ( bytes > 0 )
                memcpy( data, m_buffer + m_bits / 8, (size_t) bytes );
            m_bits += bytes * 8;
            return true;
        }

        int64_t GetBitsProcessed() const { return m_bits; }
        int64_t GetBytesProcessed() const { return ( m_bits + 7 ) / 8; }

    private:
        const uint8_t * m_buffer;
        int64_t m_size;
        int64_t m_bits;
    };
}

// The macros. Each is one statement; each returns false from the
// enclosing serialize function when the stream refuses.

#define serialize_bits( stream, value, bits )                                           \
    do                                                                                  \
    {                                                                                   \
        uint32_t minser_bits = 0;                                                       \
        if ( Stream::IsWriting )                                                        \
        {                                                                               \
            if ( (bits) < 32 && ( uint64_t( value ) >> (bits) ) != 0 )                  \
                serialize::misuse( "serialize_bits: value wider than its bits" );       \
            if ( (bits) == 32 && ( uint64_t( value ) >> 32 ) != 0 )                     \
                serialize::misuse( "serialize_bits: value wider than 32 bits" );        \
            minser_bits = uint32_t( value );                                            \
        }                                                                               \
        if ( !(stream).SerializeBits( minser_bits, bits ) )                             \
            return false;                                                               \
        if ( Stream::IsReading )                                                        \
            (value) = minser_bits;                                                      \
    } while ( 0 )

#define serialize_bool( stream, value )                                                 \
    do                                                                                  \
    {                                                                                   \
        uint32_t minser_bool = 0;                                                       \
        if ( Stream::IsWriting )                                                        \
            minser_bool = (value) ? 1 : 0;                                              \
        if ( !(stream).SerializeBits( minser_bool, 1 ) )                                \
            return false;                                                               \
        if ( Stream::IsReading )                                                        \
            (value) = minser_bool != 0;                                                 \
    } while ( 0 )

#define serialize_int( stream, value, min, max )                                        \
    do                                                                                  \
    {                                                                                   \
        int32_t minser_int = 0;                                                         \
        if ( Stream::IsWriting )                                                        \
        {                                                                               \
            if ( int64_t( value ) < int64_t( min ) || int64_t( value ) > int64_t( max ) ) \
                serialize::misuse( "serialize_int: value outside [min, max]" );         \
            minser_int = int32_t( value );                                              \
        }                                                                               \
        if ( !(stream).SerializeInteger( minser_int, min, max ) )                       \
            return false;                                                               \
        if ( Stream::IsReading )                                                        \
            (value) = minser_int;                                                       \
    } while ( 0 )

#define serialize_uint64( stream, value )                                               \
    do                                                                                  \
    {                                                                                   \
        uint32_t minser_low = 0, minser_high = 0;                                       \
        if ( Stream::IsWriting )                                                        \
        {                                                                               \
            minser_low = uint32_t( uint64_t( value ) );                                 \
            minser_high = uint32_t( uint64_t( value ) >> 32 );                          \
        }                                                                               \
        if ( !(stream).SerializeBits( minser_low, 32 ) || !(stream).SerializeBits( minser_high, 32 ) ) \
            return false;                                                               \
        if ( Stream::IsReading )                                                        \
            (value) = ( uint64_t( minser_high ) << 32 ) | minser_low;                   \
    } while ( 0 )

#define serialize_float( stream, value )                                                \
    do                                                                                  \
    {                                                                                   \
        uint32_t minser_float = 0;                                                      \
        if ( Stream::IsWriting )                                                        \
            memcpy( &minser_float, &(value), 4 );                                       \
        if ( !(stream).SerializeBits( minser_float, 32 ) )                              \
            return false;                                                               \
        if ( Stream::IsReading )                                                        \
            memcpy( &(value), &minser_float, 4 );                                       \
    } while ( 0 )

#define serialize_double( stream, value )                                               \
    do                                                                                  \
    {                                                                                   \
        uint64_t minser_double = 0;                                                     \
        if ( Stream::IsWriting )                                                        \
            memcpy( &minser_double, &(value), 8 );                                      \
        serialize_uint64( stream, minser_double );                                      \
        if ( Stream::IsReading )                                                        \
            memcpy( &(value), &minser_double, 8 );                                      \
    } while ( 0 )

#define serialize_bytes( stream, data, bytes )                                          \
    do                                                                                  \
    {                                                                                   \
        if ( !(stream).SerializeBytes( data, bytes ) )                                  \
            return false;                                                               \
    } while ( 0 )

#define serialize_align( stream )                                                       \
    do                                                                                  \
    {                                                                                   \
        if ( !(stream).SerializeAlign() )                                               \
            return false;                                                               \
    } while ( 0 )

#define serialize_object( stream, object )                                              \
    do                                                                                  \
    {                                                                                   \
        if ( !(object).Serialize( stream ) )                                            \
            return false;                                                               \
    } while ( 0 )

#endif // BITPACK_MINSERIALIZE_H
