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
// serialize::WriteStream, serialize::ReadStream and serialize::MeasureStream
// with IsWriting and IsReading, and the macros serialize_bits, serialize_bool, serialize_int,
// serialize_uint64, serialize_float, serialize_double, serialize_bytes,
// serialize_align and serialize_object, which return false from the
// enclosing function when the stream refuses.
//
// It is deliberately no more lenient than serialize's own header (checked
// against serialize 1.11.0), so that a harness or client that works here
// works there:
//
// - The reader loads an 8-byte window at the byte of every read, as
//   serialize's BitReader does: the packet's allocation must extend at
//   least 8 bytes past its last byte (the bytes past it are loaded, never
//   interpreted). A packet in an allocation of exactly its size is a read
//   past the allocation, which AddressSanitizer reports.
// - The writer wants a capacity that is a multiple of 8 (serialize's
//   BitWriter stores whole 8-byte words) and keeps the bits of the word
//   being written in a scratch word until that word fills or Flush() stores
//   it: before Flush the buffer's last word is not written. The stand-in
//   fills the buffer with 0xa5 bytes when the stream is made, so a program
//   that reads the packet before Flush sees them (serialize leaves whatever
//   the buffer held, often zeros that look right).
// - Both constructors refuse a NULL buffer (serialize asserts on it).
//
// It is stricter where serialize only asserts in debug builds: any misuse
// (a value wider than its bits, an integer outside its range on write, a
// write past the capacity, bad arguments) aborts the program whatever the
// build, so a test sees every place where generated code leaves a check to
// the stream. serialize_int with min == max aborts too: serialize 1.6.2 and
// later write such a value in 0 bits, as bitpack does, but earlier versions
// (1.4.4 among them) assert min < max, so the generated code never asks.

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

    // The 8-byte words of the stream are little-endian whatever the host.
    inline uint64_t load_word( const uint8_t * p )
    {
        uint8_t b[8];
        memcpy( b, p, 8 );
        uint64_t w = 0;
        for ( int i = 7; i >= 0; i-- )
            w = ( w << 8 ) | b[i];
        return w;
    }

    inline void store_word( uint8_t * p, uint64_t w )
    {
        uint8_t b[8];
        for ( int i = 0; i < 8; i++ )
            b[i] = uint8_t( w >> ( 8 * i ) );
        memcpy( p, b, 8 );
    }

    class WriteStream
    {
    public:
        enum { IsWriting = 1 };
        enum { IsReading = 0 };

        WriteStream( uint8_t * buffer, int64_t bytes ) : m_buffer( buffer ), m_capacity( bytes * 8 ), m_bits( 0 ), m_scratch( 0 ), m_scratchBits( 0 ), m_words( 0 ), m_flushed( false )
        {
            if ( !buffer )
                misuse( "WriteStream: NULL buffer (serialize asserts on it)" );
            if ( bytes < 0 || bytes % 8 != 0 )
                misuse( "WriteStream: capacity not a multiple of 8 bytes (serialize's writer stores whole 8-byte words and asserts on it)" );
            memset( buffer, 0xa5, (size_t) bytes );
        }

        bool SerializeBits( uint32_t value, int bits )
        {
            if ( bits < 1 || bits > 32 )
                misuse( "SerializeBits: bits outside 1..32" );
            if ( bits < 32 && ( value >> bits ) != 0 )
                misuse( "SerializeBits: value wider than its bits" );
            if ( m_bits + bits > m_capacity )
                misuse( "SerializeBits: buffer full" );
            if ( m_flushed )
                misuse( "SerializeBits: a write after Flush() inside a word (serialize's next word would land past it)" );
            m_scratch |= uint64_t( value ) << m_scratchBits;
            m_scratchBits += bits;
            if ( m_scratchBits >= 64 )
            {
                store_word( m_buffer + 8 * m_words, m_scratch );
                m_words++;
                m_scratchBits -= 64;
                m_scratch = m_scratchBits == 0 ? 0 : uint64_t( value ) >> ( bits - m_scratchBits );
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
            if ( bytes < 0 || ( bytes > 0 && !data ) )
                misuse( "SerializeBytes: negative length or NULL data" );
            SerializeAlign();
            if ( m_bits + bytes * 8 > m_capacity )
                misuse( "SerializeBytes: buffer full" );
            for ( int64_t i = 0; i < bytes; i++ )
                SerializeBits( data[i], 8 );
            return true;
        }

        // Flush stores the scratch word's bits (the rest of its word zeros).
        void Flush()
        {
            if ( m_scratchBits == 0 )
                return;
            store_word( m_buffer + 8 * m_words, m_scratch );
            m_words++;
            m_scratch = 0;
            m_scratchBits = 0;
            m_flushed = true;
        }

        const uint8_t * GetData() const { return m_buffer; }
        int64_t GetBitsProcessed() const { return m_bits; }
        int64_t GetBytesProcessed() const { return ( m_bits + 7 ) / 8; }

    private:
        uint8_t * m_buffer;
        int64_t m_capacity;
        int64_t m_bits;
        uint64_t m_scratch;  // the bits of word m_words written so far
        int m_scratchBits;   // how many, in [0, 63]
        int64_t m_words;     // the words stored
        bool m_flushed;      // Flush stored a partial word
    };

    // MeasureStream counts the bits a value's Serialize would write, as
    // serialize's does: it checks every argument as the writer does, and
    // an align counts 7 bits wherever it falls (serialize cannot know where
    // the value will sit in a packet), so a measure is at least what a
    // WriteStream writes.
    class MeasureStream
    {
    public:
        enum { IsWriting = 1 };
        enum { IsReading = 0 };

        MeasureStream() : m_bits( 0 ) {}

        bool SerializeBits( uint32_t value, int bits )
        {
            if ( bits < 1 || bits > 32 )
                misuse( "SerializeBits: bits outside 1..32" );
            if ( bits < 32 && ( value >> bits ) != 0 )
                misuse( "SerializeBits: value wider than its bits" );
            m_bits += bits;
            return true;
        }

        bool SerializeInteger( int32_t value, int32_t min, int32_t max )
        {
            if ( !( min < max ) || value < min || value > max )
                misuse( "SerializeInteger: value outside [min, max], or min >= max" );
            m_bits += span_bits( uint32_t( max ) - uint32_t( min ) );
            return true;
        }

        bool SerializeAlign()
        {
            m_bits += GetAlignBits();
            return true;
        }

        bool SerializeBytes( const uint8_t * data, int64_t bytes )
        {
            if ( bytes < 0 || ( bytes > 0 && !data ) )
                misuse( "SerializeBytes: negative length or NULL data" );
            SerializeAlign();
            m_bits += bytes * 8;
            return true;
        }

        int GetAlignBits() const { return 7; }
        int64_t GetBitsProcessed() const { return m_bits; }
        int64_t GetBytesProcessed() const { return ( m_bits + 7 ) / 8; }

    private:
        int64_t m_bits;
    };

    class ReadStream
    {
    public:
        enum { IsWriting = 0 };
        enum { IsReading = 1 };

        // buffer's allocation must extend 8 bytes past its `bytes` bytes
        // (see the top of the file).
        ReadStream( const uint8_t * buffer, int64_t bytes ) : m_buffer( buffer ), m_size( bytes * 8 ), m_bits( 0 )
        {
            if ( !buffer )
                misuse( "ReadStream: NULL buffer (serialize asserts on it)" );
            if ( bytes < 0 )
                misuse( "ReadStream: negative size" );
        }

        bool SerializeBits( uint32_t & value, int bits )
        {
            if ( bits < 1 || bits > 32 )
                misuse( "SerializeBits: bits outside 1..32" );
            if ( m_bits + bits > m_size )
                return false;
            // serialize's window: 8 bytes from the byte holding the first
            // bit, up to 7 of them past the packet.
            const uint64_t window = load_word( m_buffer + ( m_bits >> 3 ) );
            value = uint32_t( window >> ( m_bits & 7 ) ) & uint32_t( ( uint64_t( 1 ) << bits ) - 1 );
            m_bits += bits;
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
                return false;
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
