// ---------------------------------------------------------------------------
// bitpack's own encodings, built on serialize's macros. Every header bitpack
// generates carries this block; the guard keeps one copy per program (its
// number changes whenever the block does).

#ifndef BITPACK_GEN_RUNTIME_4
#define BITPACK_GEN_RUNTIME_4

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace bitpack
{
    // Rounding barriers. Every float step goes through a volatile, so no
    // compiler can fuse a product and a sum into one multiply-add (GCC does
    // by default outside ISO mode, and with -ffp-contract=fast; GCC ignores
    // "#pragma STDC FP_CONTRACT") or keep extended precision (x87): each
    // step is rounded to its type, as bitpack's float32(...) conversions
    // round it in Go. -ffast-math is not supported: it rewrites the
    // arithmetic and drops the NaN and infinity checks below.
    inline float f32( float x ) { volatile float r = x; return r; }
    inline double f64( double x ) { volatile double r = x; return r; }

    // bits_required is the bit length of span (0 for 0).
    inline int bits_required( uint64_t span )
    {
        int n = 0;
        for ( ; span != 0; span >>= 1 )
            n++;
        return n;
    }

    // to_int64 converts two's complement bits to int64_t without relying on
    // implementation-defined conversions.
    inline int64_t to_int64( uint64_t u )
    {
        return u <= uint64_t( INT64_MAX ) ? int64_t( u ) : -int64_t( ~u ) - 1;
    }

    // wire_bits writes or reads 1..64 bits with serialize_bits calls of at
    // most 32 bits, low word first: the same bits as one 64-bit write.
    template <typename Stream> bool wire_bits( Stream & stream, uint64_t & value, int n )
    {
        uint32_t bp_low = 0, bp_high = 0;
        if ( Stream::IsWriting )
        {
            bp_low = uint32_t( value );
            bp_high = uint32_t( value >> 32 );
        }
        if ( n <= 32 )
        {
            serialize_bits( stream, bp_low, n );
        }
        else
        {
            serialize_bits( stream, bp_low, 32 );
            serialize_bits( stream, bp_high, n - 32 );
        }
        if ( Stream::IsReading )
            value = ( uint64_t( bp_high ) << 32 ) | bp_low;
        return true;
    }

    // unsigned_bits: bits=N on an unsigned integer (1 <= N <= 64). Writing
    // refuses a value that does not fit in N bits.
    template <typename Stream, typename T> bool unsigned_bits( Stream & stream, T & value, int n )
    {
        uint64_t bp_value = 0;
        if ( Stream::IsWriting )
        {
            bp_value = uint64_t( value );
            if ( n < 64 && ( bp_value >> n ) != 0 )
                return false;
        }
        if ( !wire_bits( stream, bp_value, n ) )
            return false;
        if ( Stream::IsReading )
            value = T( bp_value );
        return true;
    }

    // signed_bits: a signed integer in N-bit two's complement (raw signed
    // integers, and bits=N on them). Writing refuses a value outside
    // [-2^(N-1), 2^(N-1)-1]; reading sign-extends.
    template <typename Stream, typename T> bool signed_bits( Stream & stream, T & value, int n )
    {
        uint64_t bp_value = 0;
        if ( Stream::IsWriting )
        {
            const int64_t v = int64_t( value );
            if ( n < 64 )
            {
                const int64_t limit = int64_t( 1 ) << ( n - 1 );
                if ( v < -limit || v >= limit )
                    return false;
                bp_value = uint64_t( v ) & ( ( uint64_t( 1 ) << n ) - 1 );
            }
            else
            {
                bp_value = uint64_t( v );
            }
        }
        if ( !wire_bits( stream, bp_value, n ) )
            return false;
        if ( Stream::IsReading )
        {
            if ( n < 64 && ( ( bp_value >> ( n - 1 ) ) & 1 ) != 0 )
                bp_value |= ~uint64_t( 0 ) << n;
            value = T( to_int64( bp_value ) );
        }
        return true;
    }

    // unsigned_range and signed_range: range=A..B where serialize_int cannot
    // be used (bounds beyond int32_t, or A == B, which takes no bits): the
    // offset from A in bits_required(A, B) bits. Both directions refuse
    // values outside [A, B].
    template <typename Stream, typename T> bool unsigned_range( Stream & stream, T & value, uint64_t min, uint64_t max )
    {
        const uint64_t span = max - min;
        const int n = bits_required( span );
        uint64_t bp_offset = 0;
        if ( Stream::IsWriting )
        {
            bp_offset = uint64_t( value ) - min;    // below min wraps past span
            if ( bp_offset > span )
                return false;
        }
        if ( n > 0 && !wire_bits( stream, bp_offset, n ) )
            return false;
        if ( Stream::IsReading )
        {
            if ( bp_offset > span )
                return false;
            value = T( min + bp_offset );
        }
        return true;
    }

    template <typename Stream, typename T> bool signed_range( Stream & stream, T & value, int64_t min, int64_t max )
    {
        const uint64_t span = uint64_t( max ) - uint64_t( min );
        const int n = bits_required( span );
        uint64_t bp_offset = 0;
        if ( Stream::IsWriting )
        {
            bp_offset = uint64_t( int64_t( value ) ) - uint64_t( min );
            if ( bp_offset > span )
                return false;
        }
        if ( n > 0 && !wire_bits( stream, bp_offset, n ) )
            return false;
        if ( Stream::IsReading )
        {
            if ( bp_offset > span )
                return false;
            value = T( to_int64( uint64_t( min ) + bp_offset ) );
        }
        return true;
    }

    // signed_units and unsigned_units: integers with unit= or clamp. Writing
    // turns the value into units (value / unit, rounded to the nearest,
    // half away from zero; unit is 1 without unit=), which must lie in
    // [min, max] unless clamp, which moves them to the nearer bound; the
    // wire is the units' offset from min in n bits, XOR flip (2^(n-1) for a
    // raw signed field, whose wire is two's complement). Reading refuses an
    // offset past the range and multiplies the units back (bitpack refuses,
    // when a type compiles, a range whose products do not fit its field).
    template <typename Stream, typename T> bool signed_units( Stream & stream, T & value, int64_t min, int64_t max, int n, uint64_t flip, int64_t unit, bool clamp )
    {
        uint64_t bp_code = 0;
        if ( Stream::IsWriting )
        {
            int64_t units = int64_t( value );
            if ( unit > 1 )
            {
                int64_t q = units / unit, r = units % unit;
                if ( r < 0 )
                    r = -r;
                if ( r >= unit - r )    // 2r >= unit, without overflow
                    q += units < 0 ? -1 : 1;
                units = q;
            }
            if ( units < min || units > max )
            {
                if ( !clamp )
                    return false;
                units = units < min ? min : max;
            }
            bp_code = ( uint64_t( units ) - uint64_t( min ) ) ^ flip;
        }
        if ( n > 0 && !wire_bits( stream, bp_code, n ) )
            return false;
        if ( Stream::IsReading )
        {
            const uint64_t offset = bp_code ^ flip;
            if ( offset > uint64_t( max ) - uint64_t( min ) )
                return false;
            value = T( to_int64( uint64_t( min ) + offset ) * unit );
        }
        return true;
    }

    template <typename Stream, typename T> bool unsigned_units( Stream & stream, T & value, uint64_t min, uint64_t max, int n, uint64_t unit, bool clamp )
    {
        uint64_t bp_code = 0;
        if ( Stream::IsWriting )
        {
            uint64_t units = uint64_t( value );
            if ( unit > 1 )
            {
                const uint64_t r = units % unit;
                units = units / unit + ( r >= unit - r ? 1 : 0 );
            }
            if ( units < min || units > max )
            {
                if ( !clamp )
                    return false;
                units = units < min ? min : max;
            }
            bp_code = units - min;
        }
        if ( n > 0 && !wire_bits( stream, bp_code, n ) )
            return false;
        if ( Stream::IsReading )
        {
            if ( bp_code > max - min )
                return false;
            value = T( ( min + bp_code ) * unit );
        }
        return true;
    }

    // CompressedFloatField and CompressedDoubleField are a compressed
    // float's parameters (the tag's min, max and res in the field's
    // precision) and what follows from them: M = steps, codes 0..M in
    // bits bits (span M; flip 0: the wire is the code). code is the
    // writer's code of a value, refusing NaN and infinities always and
    // values outside [min, max] (widened to what code M decodes to) unless
    // clamp; store is the reader's value of a code. The formula is
    // serialize_compressed_float's, every step rounded (see f32), with
    // bitpack's clamp of the code to M; full packets and deltas share it.
    struct CompressedFloatField
    {
        float min, max, delta;
        uint32_t steps;
        int bits;
        uint64_t span, flip;
        bool clamp;

        CompressedFloatField( float lo, float hi, float res, bool clamp_values ) : min( lo ), max( hi ), delta( f32( hi - lo ) ), steps( 1 ), bits( 0 ), span( 0 ), flip( 0 ), clamp( clamp_values )
        {
            const float values = f32( delta / res );
            if ( values > 4294967040.0f )
            {
                steps = 4294967040u;
            }
            else if ( values >= 1.0f )
            {
                steps = uint32_t( values );     // ceil: values is exact above 2^24
                if ( float( steps ) < values )
                    steps++;
            }
            bits = bits_required( steps );
            span = steps;
        }

        bool code( const float & value, uint64_t & out ) const
        {
            if ( !( value == value ) || value > FLT_MAX || value < -FLT_MAX )
                return false;
            if ( !clamp )
            {
                const float top = f32( delta + min );   // what code M decodes to
                if ( !( value >= min && value <= ( top > max ? top : max ) ) )
                    return false;
            }
            float normalized = f32( f32( value - min ) / delta );
            if ( !( normalized > 0.0f ) )
                normalized = 0.0f;
            else if ( normalized > 1.0f )
                normalized = 1.0f;
            const float scaled = f32( f32( normalized * float( steps ) ) + 0.5f );
            const uint64_t c = uint64_t( scaled );  // floor: scaled >= 0.5
            out = c < steps ? c : steps;
            return true;
        }

        void store( uint64_t code, float & value ) const
        {
            const float normalized = f32( float( uint32_t( code ) ) / float( steps ) );
            value = f32( f32( normalized * delta ) + min );
        }
    };

    // CompressedDoubleField is bitpack's float64 compressed float: the same
    // formula in double, with the same step clamp (codes of at most 32
    // bits). serialize has no such primitive; only bitpack reads it.
    struct CompressedDoubleField
    {
        double min, max, delta;
        uint32_t steps;
        int bits;
        uint64_t span, flip;
        bool clamp;

        CompressedDoubleField( double lo, double hi, double res, bool clamp_values ) : min( lo ), max( hi ), delta( f64( hi - lo ) ), steps( 1 ), bits( 0 ), span( 0 ), flip( 0 ), clamp( clamp_values )
        {
            const double values = f64( delta / res );
            if ( values > 4294967040.0 )
            {
                steps = 4294967040u;
            }
            else if ( values >= 1.0 )
            {
                steps = uint32_t( values );
                if ( double( steps ) < values )
                    steps++;
            }
            bits = bits_required( steps );
            span = steps;
        }

        bool code( const double & value, uint64_t & out ) const
        {
            if ( !( value == value ) || value > DBL_MAX || value < -DBL_MAX )
                return false;
            if ( !clamp )
            {
                const double top = f64( delta + min );
                if ( !( value >= min && value <= ( top > max ? top : max ) ) )
                    return false;
            }
            double normalized = f64( f64( value - min ) / delta );
            if ( !( normalized > 0.0 ) )
                normalized = 0.0;
            else if ( normalized > 1.0 )
                normalized = 1.0;
            const double scaled = f64( f64( normalized * double( steps ) ) + 0.5 );
            const uint64_t c = uint64_t( scaled );
            out = c < steps ? c : steps;
            return true;
        }

        void store( uint64_t code, double & value ) const
        {
            const double normalized = f64( double( uint32_t( code ) ) / double( steps ) );
            value = f64( f64( normalized * delta ) + min );
        }
    };

    // compressed_float and compressed_double are serialize_compressed_float
    // with bitpack's rules (see CompressedFloatField): writing refuses what
    // code refuses, reading refuses codes above M.
    template <typename Stream, typename Field, typename F> bool compressed( Stream & stream, const Field & field, F & value )
    {
        uint64_t code = 0;
        if ( Stream::IsWriting && !field.code( value, code ) )
            return false;
        uint32_t bp_code = uint32_t( code );
        serialize_bits( stream, bp_code, field.bits );
        if ( Stream::IsReading )
        {
            if ( bp_code > field.steps )
                return false;
            field.store( bp_code, value );
        }
        return true;
    }

    template <typename Stream> bool compressed_float( Stream & stream, float & value, float min, float max, float res, bool clamp )
    {
        return compressed( stream, CompressedFloatField( min, max, res, clamp ), value );
    }

    template <typename Stream> bool compressed_double( Stream & stream, double & value, double min, double max, double res, bool clamp )
    {
        return compressed( stream, CompressedDoubleField( min, max, res, clamp ), value );
    }

