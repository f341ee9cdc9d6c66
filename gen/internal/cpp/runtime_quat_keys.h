
// Quaternions and map keys, the second part of the block.

namespace bitpack
{
    // Quaternions: bitpack's canonical smallest-three (docs/wire.md,
    // "Quaternions"). Every float step is rounded through f32, sqrt is
    // taken in double and rounded once (exactly a float sqrt).
    inline float float_of_bits( uint32_t bits )
    {
        float f;
        memcpy( &f, &bits, 4 );
        return f;
    }

    inline uint32_t bits_of_float( float f )
    {
        uint32_t bits;
        memcpy( &bits, &f, 4 );
        return bits;
    }

    inline float quat_m() { return float_of_bits( 0x3f3504f3u ); }      // float32(1/sqrt(2))
    inline float quat_delta() { return float_of_bits( 0x3fb504f3u ); }  // 2m, exact

    inline float quat_abs( float f ) { return float_of_bits( bits_of_float( f ) & 0x7fffffffu ); }

    // narrow is Go's float32(d): a double outside float's range rounds to
    // an infinity (a C++ conversion would be undefined there).
    inline float narrow( float f ) { return f; }
    inline float narrow( double d )
    {
        if ( d >= 340282356779733661637539395458142568448.0 )      // 2^128 - 2^103: halfway past FLT_MAX
            return float_of_bits( 0x7f800000u );
        if ( d <= -340282356779733661637539395458142568448.0 )
            return float_of_bits( 0xff800000u );
        if ( d > FLT_MAX )
            return FLT_MAX;
        if ( d < -FLT_MAX )
            return -FLT_MAX;
        return float( d );
    }

    inline uint32_t quat_quantize( float f, uint32_t steps )
    {
        float n = f32( f32( f + quat_m() ) / quat_delta() );
        if ( !( n > 0.0f ) )
            n = 0.0f;
        else if ( n > 1.0f )
            n = 1.0f;
        const uint32_t code = uint32_t( f32( f32( n * float( steps ) ) + 0.5f ) );  // floor: at least 0.5
        return code < steps ? code : steps;
    }

    inline float quat_dequantize( uint32_t code, uint32_t steps )
    {
        const float n = f32( float( code ) / float( steps ) );
        return f32( f32( n * quat_delta() ) - quat_m() );
    }

    // quat_decode rebuilds v = (x, y, z, w) from the index of the largest
    // component and the codes of the other three (each at most steps), and
    // reports whether the code is canonical: whether the rebuilt component
    // outranks the others as the encoder ranks them (larger, or equal at a
    // higher index).
    inline bool quat_decode( uint32_t largest, const uint32_t code[3], uint32_t steps, float v[4] )
    {
        float s[3];
        for ( int k = 0; k < 3; k++ )
            s[k] = quat_dequantize( code[k], steps );
        float rest = f32( f32( f32( 1.0f - f32( s[0] * s[0] ) ) - f32( s[1] * s[1] ) ) - f32( s[2] * s[2] ) );
        if ( !( rest > 0.0f ) )
            rest = 0.0f;
        const float big = f32( float( sqrt( double( rest ) ) ) );
        bool canonical = true;
        for ( uint32_t i = 0, k = 0; i < 4; i++ )
        {
            if ( i == largest )
            {
                v[i] = big;
                continue;
            }
            const float a = quat_abs( s[k] );
            if ( a > big || ( a == big && i > largest ) )
                canonical = false;
            v[i] = s[k++];
        }
        return canonical;
    }

    // quat_natural is the plain smallest-three code of v: the largest
    // magnitude (the highest index on a tie) is dropped, all four negated
    // first if its sign bit is set, and the other three quantized in order.
    inline void quat_natural( const float v[4], uint32_t steps, uint32_t & largest, uint32_t code[3] )
    {
        largest = 0;
        for ( uint32_t i = 1; i < 4; i++ )
        {
            if ( quat_abs( v[i] ) >= quat_abs( v[largest] ) )
                largest = i;
        }
        const bool negate = ( bits_of_float( v[largest] ) >> 31 ) != 0;
        for ( uint32_t i = 0, k = 0; i < 4; i++ )
        {
            if ( i != largest )
                code[k++] = quat_quantize( negate ? -v[i] : v[i], steps );
        }
    }

    // quat_encode is bitpack's canonical code of a finite quaternion: the
    // natural code when it decodes canonically; otherwise the natural code
    // of the normalised quaternion, its codes moved one step at a time
    // toward the middle (the farthest first) until it does.
    inline void quat_encode( const float v[4], uint32_t steps, uint32_t & largest, uint32_t code[3] )
    {
        float decoded[4];
        quat_natural( v, steps, largest, code );
        if ( quat_decode( largest, code, steps, decoded ) )
            return;
        const float n2 = f32( f32( f32( f32( v[0] * v[0] ) + f32( v[1] * v[1] ) ) + f32( v[2] * v[2] ) ) + f32( v[3] * v[3] ) );
        const float r = f32( float( sqrt( double( n2 ) ) ) );
        const float unit[4] = { f32( v[0] / r ), f32( v[1] / r ), f32( v[2] / r ), f32( v[3] / r ) };
        quat_natural( unit, steps, largest, code );
        const uint32_t mid = steps / 2;
        while ( !quat_decode( largest, code, steps, decoded ) )
        {
            int far = 0;
            uint32_t most = 0;
            for ( int k = 0; k < 3; k++ )
            {
                const uint32_t d = code[k] > mid ? code[k] - mid : mid - code[k];
                if ( d > most )
                {
                    far = k;
                    most = d;
                }
            }
            if ( code[far] > mid )
                code[far]--;
            else
                code[far]++;
        }
    }

    // quat_encodable is bitpack's rule for which quaternions are written:
    // all four components +-0 (Go's zero value, written as the identity),
    // or a squared norm, summed in double in order with each square
    // rounded, within {{QUAT_NORM_TOLERANCE}} of 1 (which refuses NaN and infinities too).
    inline bool quat_encodable( const float v[4] )
    {
        if ( ( ( bits_of_float( v[0] ) | bits_of_float( v[1] ) | bits_of_float( v[2] ) | bits_of_float( v[3] ) ) << 1 ) == 0 )
            return true;
        double n2 = 0.0;
        for ( int i = 0; i < 4; i++ )
            n2 = f64( n2 + f64( double( v[i] ) * double( v[i] ) ) );
        const double d = f64( n2 - 1.0 );
        return d <= {{QUAT_NORM_TOLERANCE}} && d >= -{{QUAT_NORM_TOLERANCE}};
    }

    // quat is a smallest-three quaternion of bits per component: the index
    // of the largest component in 2 bits, then the three others' codes in
    // order. Writing refuses what bitpack refuses (see quat_encodable);
    // reading refuses codes above M = 2^bits - 2 and codes that are not
    // canonical. float64 components travel as float32 (Go's float32(x)) and
    // decode to the float32 results.
    template <typename Stream, typename F> bool quat( Stream & stream, F & x, F & y, F & z, F & w, int bits )
    {
        const uint32_t steps = ( uint32_t( 1 ) << bits ) - 2;
        uint32_t bp_largest = 0, bp_code[3] = { 0, 0, 0 };
        if ( Stream::IsWriting )
        {
            const float v[4] = { narrow( x ), narrow( y ), narrow( z ), narrow( w ) };
            if ( !quat_encodable( v ) )
                return false;
            quat_encode( v, steps, bp_largest, bp_code );
        }
        serialize_bits( stream, bp_largest, 2 );
        serialize_bits( stream, bp_code[0], bits );
        serialize_bits( stream, bp_code[1], bits );
        serialize_bits( stream, bp_code[2], bits );
        if ( Stream::IsReading )
        {
            float v[4];
            if ( bp_code[0] > steps || bp_code[1] > steps || bp_code[2] > steps || !quat_decode( bp_largest, bp_code, steps, v ) )
                return false;
            x = F( v[0] );
            y = F( v[1] );
            z = F( v[2] );
            w = F( v[3] );
        }
        return true;
    }

    // Maps travel in ascending key order. key_less orders keys: integers and
    // bools as numbers, strings (char arrays) by their bytes.
    template <typename T> inline bool key_less( const T & a, const T & b ) { return a < b; }

    template <size_t N> inline bool key_less( const char ( &a )[N], const char ( &b )[N] )
    {
        for ( size_t i = 0; i < N; i++ )
        {
            const unsigned char x = (unsigned char) a[i], y = (unsigned char) b[i];
            if ( x != y )
                return x < y;
            if ( x == 0 )
                return false;
        }
        return false;
    }

    template <typename K> inline bool keys_ascending( const K * keys, int n )
    {
        for ( int i = 1; i < n; i++ )
        {
            if ( !key_less( keys[i - 1], keys[i] ) )
                return false;
        }
        return true;
    }

    // next_key is the entry whose key is the smallest above keys[previous]
    // (the smallest of all when previous < 0): a writer's next entry when the
    // keys are not in order. -1 when two keys are equal (no Go map holds
    // them) or none is left.
    template <typename K> inline int next_key( const K * keys, int n, int previous )
    {
        int best = -1;
        for ( int i = 0; i < n; i++ )
        {
            if ( previous >= 0 && !key_less( keys[previous], keys[i] ) )
                continue;
            if ( best < 0 || key_less( keys[i], keys[best] ) )
                best = i;
            else if ( !key_less( keys[best], keys[i] ) )
                return -1;
        }
        return best;
    }
}

#define bitpack_quat( stream, x, y, z, w, bits ) do { if ( !bitpack::quat( stream, x, y, z, w, bits ) ) return false; } while (0)

