    // text_ok reports whether p[0..n) is UTF-8 exactly as Go's utf8.Valid
    // accepts it (no overlong forms, no surrogates, nothing past U+10FFFF)
    // and holds no NUL byte.
    inline bool text_ok( const uint8_t * p, int n )
    {
        int i = 0;
        while ( i < n )
        {
            const uint8_t c = p[i];
            if ( c == 0 )
                return false;
            if ( c < 0x80 )
            {
                i++;
                continue;
            }
            int length = 0;
            uint8_t low = 0x80, high = 0xBF;    // the second byte's range
            if ( c >= 0xC2 && c <= 0xDF )
                length = 2;
            else if ( c == 0xE0 )
                length = 3, low = 0xA0;
            else if ( c == 0xED )
                length = 3, high = 0x9F;
            else if ( c >= 0xE1 && c <= 0xEF )
                length = 3;
            else if ( c == 0xF0 )
                length = 4, low = 0x90;
            else if ( c == 0xF4 )
                length = 4, high = 0x8F;
            else if ( c >= 0xF1 && c <= 0xF3 )
                length = 4;
            else
                return false;
            if ( n - i < length || p[i+1] < low || p[i+1] > high )
                return false;
            for ( int k = 2; k < length; k++ )
            {
                if ( p[i+k] < 0x80 || p[i+k] > 0xBF )
                    return false;
            }
            i += length;
        }
        return true;
    }

    // text is serialize_string's wire (the length in [0, maxlen], align,
    // the bytes) for a char[maxlen + 1] buffer, with bitpack's rules: both
    // directions refuse invalid UTF-8 and NUL bytes, reading charges the
    // bytes to the allowances as Go does, and writing refuses a
    // string with no terminator within maxlen + 1 bytes. maxlen 0 is
    // allowed (no length bits; serialize_string would assert).
    template <typename Stream> bool text( Stream & stream, char * s, int maxlen )
    {
        int length = 0;
        if ( Stream::IsWriting )
        {
            while ( length <= maxlen && s[length] != '\0' )
                length++;
            if ( length > maxlen || !text_ok( (const uint8_t*) s, length ) )
                return false;
        }
        if ( maxlen > 0 )
            serialize_int( stream, length, 0, maxlen );
        serialize_bytes( stream, (uint8_t*) s, length );
        if ( Stream::IsReading )
        {
            s[length] = '\0';
            if ( !text_ok( (const uint8_t*) s, length ) || !charge_value( 0, length ) )
                return false;
        }
        return true;
    }

    // int_relative is serialize_int_relative with bitpack's reading rules:
    // current must exceed previous in every tier, and a difference that a
    // smaller tier could hold is refused in the absolute tier, so every
    // accepted packet re-encodes to the same bits. Writing refuses
    // current <= previous.
    template <typename Stream> bool int_relative( Stream & stream, int32_t previous, int32_t & current )
    {
        uint32_t difference = 0;
        if ( Stream::IsWriting )
        {
            if ( !( previous < current ) )
                return false;
            difference = uint32_t( current ) - uint32_t( previous );
        }
        bool one = difference == 1;
        serialize_bool( stream, one );
        if ( one )
        {
            if ( Stream::IsReading )
            {
                if ( previous == INT32_MAX )
                    return false;
                current = previous + 1;
            }
            return true;
        }
        static const int32_t low[5] = { 2, 7, 24, 281, 4378 };
        static const int32_t high[5] = { 6, 23, 280, 4377, 69914 };
        for ( int tier = 0; tier < 5; tier++ )
        {
            bool here = difference <= uint32_t( high[tier] );
            serialize_bool( stream, here );
            if ( here )
            {
                int32_t d = int32_t( difference );
                serialize_int( stream, d, low[tier], high[tier] );
                if ( Stream::IsReading )
                {
                    const int64_t c = int64_t( previous ) + d;
                    if ( c > INT32_MAX )
                        return false;
                    current = int32_t( c );
                }
                return true;
            }
        }
        uint32_t bp_value = uint32_t( current );
        serialize_bits( stream, bp_value, 32 );
        if ( Stream::IsReading )
        {
            const int64_t c = bp_value <= 0x7FFFFFFFu ? int64_t( bp_value ) : int64_t( bp_value ) - INT64_C( 4294967296 );
            if ( c <= previous || c - previous <= 69914 )
                return false;
            current = int32_t( c );
        }
        return true;
    }

    // check is a serialize check as the articles and yojimbo write it:
    // align, then the 32-bit hash of the check's name; reading refuses any
    // other value.
    template <typename Stream> bool check( Stream & stream, uint32_t hash )
    {
        serialize_align( stream );
        uint32_t bp_value = hash;
        serialize_bits( stream, bp_value, 32 );
        if ( Stream::IsReading && bp_value != hash )
            return false;
        return true;
    }

