
// Deltas (docs/wire.md, "Delta encoding"), the third part of the block: a
// value against a base the receiver holds. Each generated struct has
// SerializeDelta (the packet), SerializeDeltaBody (its items) and
// DeltaChanged (whether it differs from a base on the wire); these are
// their helpers.

#ifndef BITPACK_HOOK_BYTES
#define BITPACK_HOOK_BYTES 256  // hook values up to this many bytes are compared on the stack (see hook_differs)
#endif

namespace bitpack
{
    // same_bits: values the same in memory are unchanged, and not checked,
    // as bitpack compares them (raw floats by their bits).
    template <typename T> inline bool same_bits( const T & a, const T & b ) { return memcmp( &a, &b, sizeof( T ) ) == 0; }

    // The fixed-width fields of a delta (bools, integers, raw and compressed
    // floats) change by their offset code: the number their full encoding
    // carries before a raw signed field's two's complement (v - min, the
    // float's bits, the compressed float's code), at most span, bits wide;
    // the wire is the offset XOR flip. code is the writer's offset of a
    // value (false for one the writer refuses; clamp and unit= as it
    // applies them), store the reader's value of an offset. The compressed
    // floats' are CompressedFloatField and CompressedDoubleField.
    struct BoolField
    {
        int bits;
        uint64_t span, flip;
        BoolField() : bits( 1 ), span( 1 ), flip( 0 ) {}
        bool code( const bool & value, uint64_t & out ) const { out = value ? 1 : 0; return true; }
        void store( uint64_t code, bool & value ) const { value = code != 0; }
    };

    // UnsignedField: [min, max] in units of unit (raw fields: [0, 2^bits - 1], unit 1).
    struct UnsignedField
    {
        uint64_t min, max, unit;
        int bits;
        uint64_t span, flip;
        bool clamp;

        UnsignedField( uint64_t lo, uint64_t hi, int n, uint64_t u, bool clamp_values ) : min( lo ), max( hi ), unit( u ), bits( n ), span( hi - lo ), flip( 0 ), clamp( clamp_values ) {}

        template <typename T> bool code( const T & value, uint64_t & out ) const
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
            out = units - min;
            return true;
        }

        template <typename T> void store( uint64_t code, T & value ) const { value = T( ( min + code ) * unit ); }
    };

    // SignedField: [min, max] in units of unit; a raw field's is
    // [-2^(bits-1), 2^(bits-1) - 1] with flip 2^(bits-1).
    struct SignedField
    {
        int64_t min, max, unit;
        int bits;
        uint64_t span, flip;
        bool clamp;

        SignedField( int64_t lo, int64_t hi, int n, uint64_t xor_flip, int64_t u, bool clamp_values ) : min( lo ), max( hi ), unit( u ), bits( n ), span( uint64_t( hi ) - uint64_t( lo ) ), flip( xor_flip ), clamp( clamp_values ) {}

        template <typename T> bool code( const T & value, uint64_t & out ) const
        {
            int64_t units = int64_t( value );
            if ( unit > 1 )
            {
                int64_t q = units / unit, r = units % unit;
                if ( r < 0 )
                    r = -r;
                if ( r >= unit - r )
                    q += units < 0 ? -1 : 1;
                units = q;
            }
            if ( units < min || units > max )
            {
                if ( !clamp )
                    return false;
                units = units < min ? min : max;
            }
            out = uint64_t( units ) - uint64_t( min );
            return true;
        }

        template <typename T> void store( uint64_t code, T & value ) const { value = T( to_int64( uint64_t( min ) + code ) * unit ); }
    };

    struct Float32Field
    {
        int bits;
        uint64_t span, flip;
        Float32Field() : bits( 32 ), span( 0xFFFFFFFFu ), flip( 0 ) {}
        bool code( const float & value, uint64_t & out ) const { uint32_t b; memcpy( &b, &value, 4 ); out = b; return true; }
        void store( uint64_t code, float & value ) const { const uint32_t b = uint32_t( code ); memcpy( &value, &b, 4 ); }
    };

    struct Float64Field
    {
        int bits;
        uint64_t span, flip;
        Float64Field() : bits( 64 ), span( ~uint64_t( 0 ) ), flip( 0 ) {}
        bool code( const double & value, uint64_t & out ) const { memcpy( &out, &value, 8 ); return true; }
        void store( uint64_t code, double & value ) const { memcpy( &value, &code, 8 ); }
    };

    // scalar_changed reports whether a fixed-width field differs from the
    // base's on the wire, or cannot be written (then writing the delta
    // refuses it).
    template <typename Field, typename T> inline bool scalar_changed( const Field & field, const T & value, const T & base )
    {
        uint64_t a = 0, b = 0;
        return !same_bits( value, base ) && ( !field.code( value, a ) || !field.code( base, b ) || a != b );
    }

    // delta_short is the width of a b-bit field's short form: none under 4
    // bits, else half of b rounded up, at most 8.
    inline int delta_short( int bits ) { return bits < 4 ? 0 : ( bits + 1 ) / 2 < 8 ? ( bits + 1 ) / 2 : 8; }

    // delta_scalar is a fixed-width item: its changed bit when bit is set
    // (an item alone in its value has none: it changed), then, changed from
    // offset old to next, nothing for 1 bit; the full encoding for 2 or 3;
    // else with s = delta_short(bits), h = 2^(s-1), d = next - old: 0 then
    // d + h (d < 0) or d + h - 1 (d > 0) in s bits when |d| <= h, else 1
    // then the full encoding. Reading refuses a code equal to the base's,
    // outside [0, span], or in the long form when the short one carries it,
    // and a base the writer would refuse. any is set when it changed. A
    // field of 0 bits is no item (bitpack's Field.DeltaItem): it has no
    // changed bit and never changes, so nothing is read or written. The
    // generated code passes none (they are not the model's items); this
    // keeps the rule Go's here too.
    template <typename Stream, typename Field, typename T> bool delta_scalar( Stream & stream, const Field & field, T & value, const T & base, bool bit, bool & any )
    {
        if ( field.bits == 0 )
            return true;
        uint64_t next = 0, old = 0;
        bool changed = !bit;
        if ( Stream::IsWriting )
        {
            changed = false;
            if ( !same_bits( value, base ) )
            {
                if ( !field.code( value, next ) || !field.code( base, old ) )
                    return false;
                changed = next != old;
            }
            if ( !bit && !changed )
                return false;   // not expected: the caller knows it changed
        }
        if ( bit )
            serialize_bool( stream, changed );
        if ( !changed )
            return true;
        any = true;
        if ( Stream::IsReading && !field.code( base, old ) )
            return false;
        const int s = delta_short( field.bits );
        bool full = field.bits > 1;
        if ( s > 0 )
        {
            const uint64_t h = uint64_t( 1 ) << ( s - 1 );
            uint64_t e = 0;
            if ( Stream::IsWriting )
            {
                const uint64_t d = next > old ? next - old : old - next;
                full = d > h;
                e = next > old ? h - 1 + d : h - d;
            }
            serialize_bool( stream, full );
            if ( !full )
            {
                if ( !wire_bits( stream, e, s ) )
                    return false;
                if ( Stream::IsReading )
                {
                    const uint64_t d = e < h ? h - e : e - h + 1;
                    if ( e < h ? old < d : d > field.span - old )
                        return false;
                    next = e < h ? old - d : old + d;
                }
            }
        }
        if ( full )
        {
            uint64_t wire = next ^ field.flip;
            if ( !wire_bits( stream, wire, field.bits ) )
                return false;
            if ( Stream::IsReading )
            {
                next = wire ^ field.flip;
                const uint64_t d = next > old ? next - old : old - next;
                if ( next > field.span || next == old || ( s > 0 && d <= ( uint64_t( 1 ) << ( s - 1 ) ) ) )
                    return false;
            }
        }
        else if ( field.bits == 1 && Stream::IsReading )
        {
            next = old ^ 1;
        }
        if ( Stream::IsReading )
            field.store( next, value );
        return true;
    }

    // quat_code is the code bitpack writes for (x, y, z, w), or false for a
    // quaternion it refuses (see quat).
    template <typename F> inline bool quat_code( const F & x, const F & y, const F & z, const F & w, int bits, uint32_t & largest, uint32_t code[3] )
    {
        const float v[4] = { narrow( x ), narrow( y ), narrow( z ), narrow( w ) };
        if ( !quat_encodable( v ) )
            return false;
        quat_encode( v, ( uint32_t( 1 ) << bits ) - 2, largest, code );
        return true;
    }

    template <typename F> inline bool quat_changed( const F & x, const F & y, const F & z, const F & w, const F & bx, const F & by, const F & bz, const F & bw, int bits )
    {
        if ( same_bits( x, bx ) && same_bits( y, by ) && same_bits( z, bz ) && same_bits( w, bw ) )
            return false;
        uint32_t l = 0, c[3] = { 0, 0, 0 }, bl = 0, bc[3] = { 0, 0, 0 };
        return !quat_code( x, y, z, w, bits, l, c ) || !quat_code( bx, by, bz, bw, bits, bl, bc ) || l != bl || c[0] != bc[0] || c[1] != bc[1] || c[2] != bc[2];
    }

    // delta_quat is a quaternion item: its changed bit (when bit), then its
    // full encoding, which must differ from the base's code.
    template <typename Stream, typename F> bool delta_quat( Stream & stream, F & x, F & y, F & z, F & w, const F & bx, const F & by, const F & bz, const F & bw, int bits, bool bit, bool & any )
    {
        const uint32_t steps = ( uint32_t( 1 ) << bits ) - 2;
        uint32_t largest = 0, code[3] = { 0, 0, 0 }, base_largest = 0, base_code[3] = { 0, 0, 0 };
        bool changed = !bit;
        if ( Stream::IsWriting )
        {
            changed = false;
            if ( !( same_bits( x, bx ) && same_bits( y, by ) && same_bits( z, bz ) && same_bits( w, bw ) ) )
            {
                if ( !quat_code( x, y, z, w, bits, largest, code ) || !quat_code( bx, by, bz, bw, bits, base_largest, base_code ) )
                    return false;
                changed = largest != base_largest || code[0] != base_code[0] || code[1] != base_code[1] || code[2] != base_code[2];
            }
            if ( !bit && !changed )
                return false;
        }
        if ( bit )
            serialize_bool( stream, changed );
        if ( !changed )
            return true;
        any = true;
        serialize_bits( stream, largest, 2 );
        serialize_bits( stream, code[0], bits );
        serialize_bits( stream, code[1], bits );
        serialize_bits( stream, code[2], bits );
        if ( Stream::IsReading )
        {
            float v[4];
            if ( code[0] > steps || code[1] > steps || code[2] > steps || !quat_decode( largest, code, steps, v ) )
                return false;
            if ( !quat_code( bx, by, bz, bw, bits, base_largest, base_code ) )
                return false;
            if ( largest == base_largest && code[0] == base_code[0] && code[1] == base_code[1] && code[2] == base_code[2] )
                return false;
            x = F( v[0] );
            y = F( v[1] );
            z = F( v[2] );
            w = F( v[3] );
        }
        return true;
    }

    // text_same reports whether two char[maxlen + 1] strings hold the same
    // text (up to their terminators, or all maxlen + 1 bytes).
    inline bool text_same( const char * a, const char * b, int maxlen )
    {
        for ( int i = 0; i <= maxlen; i++ )
        {
            if ( a[i] != b[i] )
                return false;
            if ( a[i] == '\0' )
                return true;
        }
        return true;
    }

    // bytes_changed reports whether a []byte (count bytes of p) differs from
    // the base's, or has a count past maxlen.
    inline bool bytes_changed( const uint8_t * p, int count, const uint8_t * base, int base_count, int maxlen )
    {
        return count != base_count || count < 0 || count > maxlen || ( count > 0 && memcmp( p, base, size_t( count ) ) != 0 );
    }

    // hook_measure is the most bits a hook type's value can take, as
    // serialize's MeasureStream counts them (an align counts 7), or -1 when
    // its Serialize refuses the value.
    template <typename T> inline int64_t hook_measure( const T & value )
    {
        T copy = value;
        serialize::MeasureStream stream;
        if ( !copy.Serialize( stream ) )
            return -1;
        return int64_t( stream.GetBitsProcessed() );
    }

    // hook_bits writes a hook type's value apart from any packet into
    // buffer (bytes long, a multiple of 8, at least what hook_measure
    // says): the bits its Serialize writes, or -1 when it refuses the value.
    template <typename T> inline int64_t hook_bits( const T & value, uint8_t * buffer, int bytes )
    {
        T copy = value;
        serialize::WriteStream stream( buffer, bytes );
        if ( !copy.Serialize( stream ) )
            return -1;
        stream.Flush();
        return int64_t( stream.GetBitsProcessed() );
    }

    // hook_differs compares two values of a hook type by the bits their
    // Serialize writes, as bitpack compares MarshalBits': 1 when they
    // differ, 0 when they are the same, -1 when either value is refused.
    // Each is measured first, then written into BITPACK_HOOK_BYTES bytes
    // on the stack when both fit and into a heap buffer when not, so any
    // value bitpack accepts is compared (a value of more than 256 MB, which
    // no packet brings, is refused).
    template <typename T> inline int hook_differs( const T & a, const T & b )
    {
        const int64_t most_a = hook_measure( a ), most_b = hook_measure( b );
        if ( most_a < 0 || most_b < 0 )
            return -1;
        const int64_t most = most_a > most_b ? most_a : most_b;
        if ( most > int64_t( 1 ) << 31 )
            return -1;
        enum { StackBytes = BITPACK_HOOK_BYTES / 8 > 0 ? BITPACK_HOOK_BYTES / 8 * 8 : 8 };
        const int bytes = int( ( most + 63 ) / 64 * 8 );
        uint8_t x[StackBytes] = { 0 }, y[StackBytes] = { 0 };
        uint8_t * heap = bytes > StackBytes ? new uint8_t[2 * size_t( bytes )] : NULL;
        uint8_t * p = heap ? heap : x;
        uint8_t * q = heap ? heap + bytes : y;
        const int capacity = heap ? bytes : int( StackBytes );
        const int64_t n = hook_bits( a, p, capacity ), m = hook_bits( b, q, capacity );
        const int differs = n < 0 || m < 0 ? -1 : n != m || memcmp( p, q, size_t( ( n + 7 ) / 8 ) ) != 0 ? 1 : 0;
        delete [] heap;
        return differs;
    }

    // hook_read_changed reports whether a delta read may carry value as a
    // change from base, as bitpack decides: base's Serialize accepts it
    // (bitpack refuses a base its MarshalBits refuses) and value's bits
    // differ from base's, a value its Serialize refuses differing from
    // every base. The base is measured once on the path a packet takes.
    template <typename T> inline bool hook_read_changed( const T & value, const T & base )
    {
        const int differs = hook_differs( value, base );
        return differs > 0 || ( differs < 0 && hook_measure( base ) >= 0 );
    }

    // Maps in deltas: the entries of a value and of its base are walked in
    // ascending key order whatever order their arrays hold them in.
    template <typename K> inline int key_compare( const K & a, const K & b ) { return key_less( a, b ) ? -1 : key_less( b, a ) ? 1 : 0; }

    // keys_distinct reports whether no two of n keys are equal (no Go map
    // holds such keys: a value with them is refused).
    template <typename K> inline bool keys_distinct( const K * keys, int n )
    {
        if ( keys_ascending( keys, n ) )
            return true;
        for ( int i = 0; i < n; i++ )
        {
            for ( int j = i + 1; j < n; j++ )
            {
                if ( key_compare( keys[i], keys[j] ) == 0 )
                    return false;
            }
        }
        return true;
    }

    // entry_after is the entry whose key follows keys[previous] (the first
    // for -1), or -1: the next index when the keys ascend, else found by a
    // scan. The keys are distinct.
    template <typename K> inline int entry_after( const K * keys, int n, bool ascending, int previous )
    {
        if ( ascending )
            return previous + 1 < n ? previous + 1 : -1;
        return next_key( keys, n, previous );
    }

    // find_key is the entry holding key, or -1; hint is tried first (the
    // same entry of a map whose keys are in the same order).
    template <typename K> inline int find_key( const K * keys, int n, const K & key, int hint )
    {
        if ( hint < n && key_compare( keys[hint], key ) == 0 )
            return hint;
        for ( int i = 0; i < n; i++ )
        {
            if ( key_compare( keys[i], key ) == 0 )
                return i;
        }
        return -1;
    }

    // copy_value copies a stored value, arrays element by element.
    template <typename T> inline void copy_value( T & dst, const T & src ) { dst = src; }

    template <typename T, size_t N> inline void copy_value( T ( &dst )[N], const T ( &src )[N] )
    {
        for ( size_t i = 0; i < N; i++ )
            copy_value( dst[i], src[i] );
    }

    // live_count is how many elements of an array of capacity elements a
    // count says are live: the count, within [0, capacity] (a count out of
    // range, which a write refuses, copies at most the whole array).
    inline int live_count( int count, int capacity )
    {
        return count < 0 ? 0 : count > capacity ? capacity : count;
    }

    // copy_text copies a char[maxlen + 1] string up to its terminator (all
    // maxlen + 1 bytes when it has none): the bytes past it are never read.
    inline void copy_text( char * dst, const char * src, int maxlen )
    {
        for ( int i = 0; i <= maxlen; i++ )
        {
            dst[i] = src[i];
            if ( src[i] == '\0' )
                return;
        }
    }

    // whole_packet reports whether a read stream that read a value from a
    // packet of `bytes` bytes stopped inside its last byte. Serialize leaves
    // trailing bytes to its caller; bitpack.Unmarshal refuses them.
    template <typename Stream> bool whole_packet( const Stream & stream, int64_t bytes )
    {
        return bytes * 8 - int64_t( stream.GetBitsProcessed() ) < 8;
    }

    // The results of read_packet and read_delta.
    enum class ReadResult { ok, refused, trailing };

    // read_packet reads a whole packet of `bytes` bytes, as bitpack.Unmarshal
    // does, from stream (a read stream over it) into value: refused when
    // Unmarshal refuses it (the allowances included: it opens one for the
    // packet), trailing when whole bytes follow the value. Unless ok, value
    // is partly overwritten.
    template <typename Stream, typename T> inline ReadResult read_packet( Stream & stream, int64_t bytes, T & value )
    {
        Allowance allowance( bytes );
        if ( !charge_root( value ) || !value.Serialize( stream ) )
            return ReadResult::refused;
        return whole_packet( stream, bytes ) ? ReadResult::ok : ReadResult::trailing;
    }

    // read_delta applies a whole delta packet, as bitpack.UnmarshalDelta
    // does (the allowances included: it opens one for the packet): value
    // becomes base with the delta's changes. value must not be base
    // (refused). Unless ok, value is partly overwritten.
    template <typename Stream, typename T> inline ReadResult read_delta( Stream & stream, int64_t bytes, const T & base, T & value )
    {
        Allowance allowance( bytes );
        if ( !value.SerializeDelta( stream, base ) )
            return ReadResult::refused;
        return whole_packet( stream, bytes ) ? ReadResult::ok : ReadResult::trailing;
    }
}

#define bitpack_delta_scalar( stream, field, value, base, bit, any ) do { if ( !bitpack::delta_scalar( stream, field, value, base, bit, any ) ) return false; } while (0)
#define bitpack_delta_quat( stream, x, y, z, w, bx, by, bz, bw, bits, bit, any ) do { if ( !bitpack::delta_quat( stream, x, y, z, w, bx, by, bz, bw, bits, bit, any ) ) return false; } while (0)

