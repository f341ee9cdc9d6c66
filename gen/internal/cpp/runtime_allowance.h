
    // The allowances (docs/wire.md, "Limits of the Go decoder"): what one
    // packet may make a read visit and allocate, counted as bitpack's Go
    // decoder counts it and with its numbers, so that a read refuses exactly
    // the packets Go refuses (here nothing is allocated, but a packet of a
    // few bytes could still claim millions of values to loop over). A read
    // of b bits may visit {{ALLOW_WORK_BASE}} + {{ALLOW_WORK_PER_BIT}}b values and allocate {{ALLOW_BYTES_BASE}} + {{ALLOW_BYTES_PER_BIT}}b bytes, and
    // starts having spent {{ALLOW_OVERHEAD}} bytes. The generated code charges when the
    // packet says what follows (a count, a presence bit, an index), before
    // looping over it, with the figures of the Go type (bitpack's
    // Field.Charge): a charge is refused when its values exceed what is left
    // of the first allowance, or its bytes what is left of the second.
    //
    // read_packet and read_delta open an Allowance for their packet; the
    // reads they run charge it, on this thread. A read with none open refuses
    // the first value it would charge: to call Serialize (or SerializeDelta)
    // yourself, open one for the packet first:
    //
    //     bitpack::Allowance allowance( packet_bytes );
    //     serialize::ReadStream stream( packet, packet_bytes );
    //     if ( !value.Serialize( stream ) ...
    //
    // (read_packet also charges the value's own values, as Go's Unmarshal
    // does: bitpack::charge_root( value ).)
    class Allowance
    {
    public:
        explicit Allowance( int64_t packet_bytes )
            : work_limit( {{ALLOW_WORK_BASE}} + {{ALLOW_WORK_PER_BIT}} * 8 * packet_bytes ), bytes_limit( {{ALLOW_BYTES_BASE}} + {{ALLOW_BYTES_PER_BIT}} * 8 * packet_bytes ),
              work( 0 ), bytes( {{ALLOW_OVERHEAD}} ), outer( current() )
        {
            current() = this;
        }

        ~Allowance() { current() = outer; }

        // take spends work values and n bytes, or refuses them (false) and
        // spends nothing.
        bool take( int64_t w, int64_t n )
        {
            if ( w > work_limit - work || n > bytes_limit - bytes )
                return false;
            work += w;
            bytes += n;
            return true;
        }

        // current is the innermost Allowance open on this thread, or NULL.
        static Allowance *& current()
        {
            static thread_local Allowance * open = NULL;
            return open;
        }

    private:
        Allowance( const Allowance & ) = delete;
        Allowance & operator=( const Allowance & ) = delete;

        const int64_t work_limit, bytes_limit;
        int64_t work, bytes;
        Allowance * outer;
    };

    const int64_t max_figure = {{MAX_FIGURE}};

    // mul multiplies non-negative figures, saturating at max_figure (past
    // every allowance).
    inline int64_t mul( int64_t a, int64_t b )
    {
        if ( a != 0 && b > max_figure / a )
            return max_figure;
        return a * b < max_figure ? a * b : max_figure;
    }

    // round_alloc is at least what Go's allocator takes for n bytes, as the
    // allowances count it: 0 for n <= 0, 16 up to 16, whole 8 KiB pages
    // above 32 KiB, else n rounded up to a multiple of half its leading
    // power of two.
    inline int64_t round_alloc( int64_t n )
    {
        if ( n <= 0 )
            return 0;
        if ( n <= {{ALLOC_SMALL}} )
            return {{ALLOC_SMALL}};
        if ( n > {{ALLOC_CLASS_LIMIT}} )
            return ( n < max_figure - ( {{ALLOC_PAGE}} - 1 ) ? n + ( {{ALLOC_PAGE}} - 1 ) : max_figure ) & ~( INT64_C( {{ALLOC_PAGE}} ) - 1 );
        int64_t step = 1;
        while ( step <= n )
            step <<= 1;
        step >>= 2; // half n's leading power of two
        return ( n + step - 1 ) & ~( step - 1 );
    }

    // charge spends work values and n bytes of the open Allowance.
    inline bool charge( int64_t work, int64_t n )
    {
        Allowance * a = Allowance::current();
        return a != NULL && a->take( work, n );
    }

    // One value the packet brings (a pointee, a union member, a sparse
    // element; a string's or byte slice's bytes: work 0, size their count).
    inline bool charge_value( int64_t work, int64_t size ) { return charge( work, round_alloc( size ) ); }

    // A slice's n elements; times is 2 for elements with fields off the wire.
    inline bool charge_values( int64_t n, int64_t work, int64_t size, int times )
    {
        return charge( mul( n, work ), mul( round_alloc( mul( n, size ) ), times ) );
    }

    // A sparse slice's n slots.
    inline bool charge_slots( int64_t n )
    {
        return charge( ( n + {{ALLOW_SLOTS_PER_VALUE}} - 1 ) / {{ALLOW_SLOTS_PER_VALUE}}, round_alloc( mul( n, {{ALLOW_SLOT_BYTES}} ) ) );
    }

    // A map's n entries of work values and a slot of slot bytes each: its
    // table, twice.
    inline bool charge_entries( int64_t n, int64_t work, int64_t slot )
    {
        return n == 0 || charge( mul( n, work ), mul( round_alloc( {{ALLOW_MAP_HEADER}} + mul( n, {{ALLOW_MAP_SLOT_FACTOR}} * slot ) ), 2 ) );
    }

    // One entry a delta adds to a map: its share of the table, twice,
    // unrounded.
    inline bool charge_entry( int64_t work, int64_t slot ) { return charge( work, 2 * {{ALLOW_MAP_SLOT_FACTOR}} * slot ); }

    // A hook's call: its value of size bytes and the call's own.
    inline bool charge_hook( int64_t work, int64_t size ) { return charge( work, round_alloc( size ) + {{ALLOW_HOOK_CALL}} ); }

    // charge_root charges a read of value: its own values (which it does not
    // allocate), as Go's Unmarshal does when it starts.
    template <typename T> inline bool charge_root( const T & ) { return charge( T::bp_work(), 0 ); }

#define bitpack_charge( charged ) do { if ( Stream::IsReading && !( charged ) ) return false; } while (0)
