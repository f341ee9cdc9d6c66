
// Snapshot streams (docs/wire.md, "Snapshot streams"), the last part of the
// block: bitpack::Receiver reads the packets of a Go snapshot.Sender as
// snapshot.Receiver does.

namespace bitpack
{
    // The results of Receiver::read, in the order its checks run: overflow
    // (the packet is shorter than its header and a delta), range (a long
    // form offset the short form carries, an offset the history cannot
    // hold, a packet older than the sequences the history keeps), no_base
    // (the packet's base is not a view the receiver holds: never read,
    // evicted, another stream's or one the receiver left; Go's
    // snapshot.ErrNoBase), refused (the delta refused, as
    // bitpack.UnmarshalDelta refuses it), trailing (whole bytes after the
    // delta). The first three and trailing are Go's categories (ErrOverflow,
    // ErrRange, ErrTrailing); refused is whichever of Go's the delta met.
    enum class ReceiveResult { ok, overflow, range, no_base, refused, trailing };

    // sequence_newer reports whether 16-bit sequence a is newer than b
    // (serialize's sequence_greater_than).
    inline bool sequence_newer( uint16_t a, uint16_t b )
    {
        return ( a > b && a - b <= {{SNAP_SEQ_HALF}} ) || ( a < b && b - a > {{SNAP_SEQ_HALF}} );
    }

    inline uint32_t load_le32( const uint8_t * p )
    {
        return uint32_t( p[0] ) | uint32_t( p[1] ) << 8 | uint32_t( p[2] ) << 16 | uint32_t( p[3] ) << 24;
    }

    // Receiver<T, History> reads a stream of packets from a Go
    // snapshot.Sender of T's Go type with the same History (a power of two
    // from {{SNAP_MIN_HISTORY}} to {{SNAP_MAX_HISTORY}}): it keeps the views of the last History sequences
    // up to the newest it read, decodes each packet's delta against the view
    // its header names, and says what to acknowledge. It accepts and refuses
    // exactly the packets snapshot.Receiver does, with the same views and
    // the same ack after each. It is not safe for concurrent use, and it
    // cannot be copied (make one per stream, on the heap when History views
    // of T are large).
    //
    // Memory: the receiver owns its views (one T per slot of the history,
    // each made when a packet for the slot is first accepted), one more T
    // to decode into, and a buffer for the packet's delta (serialize's
    // reader loads 8 bytes at a time, so the delta is copied where 8 bytes
    // follow it; the buffer grows to the largest packet read). Once every
    // slot holds a view and the buffer fits the packets, read allocates
    // nothing (but what hook types' own Serialize does).
    template <typename T, int History = {{SNAP_DEFAULT_HISTORY}}> class Receiver
    {
        static_assert( History >= {{SNAP_MIN_HISTORY}} && History <= {{SNAP_MAX_HISTORY}} && ( History & ( History - 1 ) ) == 0, "History is a power of two from {{SNAP_MIN_HISTORY}} to {{SNAP_MAX_HISTORY}}, the Sender's" );

    public:
        Receiver() : zero_(), spare_( NULL ), buffer_( NULL ), capacity_( 0 ), newest_( 0 ), stream_( 0 ), read_( false ), on_( false ), nleft_( 0 ), next_left_( 0 ), result_( ReceiveResult::ok )
        {
            for ( int i = 0; i < History; i++ )
                slots_[i] = NULL;
            for ( int i = 0; i < {{SNAP_LEFT_STREAMS}}; i++ )
                left_[i] = 0;
        }

        ~Receiver()
        {
            for ( int i = 0; i < History; i++ )
                delete slots_[i];
            delete spare_;
            delete [] buffer_;
        }

        Receiver( const Receiver & ) = delete;
        Receiver & operator=( const Receiver & ) = delete;

        // read reads one packet of `bytes` bytes (any buffer: it is not
        // read past its bytes, and not kept). Accepted, it returns true,
        // out becomes a copy of the packet's view (out is the caller's, the
        // view stays the receiver's; copied by T's CopyFrom, at the cost of
        // what the view holds) and seq the packet's sequence. Refused, it
        // returns false, result() says why, and nothing changes: neither
        // the receiver (its views, its ack) nor out; seq is the packet's
        // sequence when its header was read (no_base, refused, trailing, and
        // range for a packet older than the history), else 0.
        bool read( const uint8_t * packet, size_t bytes, T & out, uint16_t & seq )
        {
            seq = 0;
            if ( packet == NULL || bytes < {{SNAP_MIN_PACKET}} )
                return refuse( ReceiveResult::overflow );
            const uint16_t s = uint16_t( packet[0] | packet[1] << 8 );
            size_t n = {{SNAP_SHORT_HEADER}};
            uint16_t offset = 0;
            if ( ( packet[2] & 1 ) == 0 )
            {
                offset = uint16_t( packet[2] >> 1 );
                if ( offset == 0 )
                    n = {{SNAP_ZERO_HEADER}};
            }
            else
            {
                n = {{SNAP_LONG_HEADER}};
                offset = uint16_t( ( packet[2] | packet[3] << 8 ) >> 1 );
            }
            if ( bytes < n + 1 )
                return refuse( ReceiveResult::overflow );
            if ( n == {{SNAP_LONG_HEADER}} && offset <= {{SNAP_MAX_SHORT}} )
                return refuse( ReceiveResult::range );
            if ( offset >= History )
                return refuse( ReceiveResult::range );
            const uint32_t check = load_le32( packet + ( n == {{SNAP_LONG_HEADER}} ? 4 : 3 ) );
            seq = s;

            // The base: the zero base of the stream the packet names, or a
            // view held under seq - offset whose id is the check.
            const T * base = &zero_;
            uint32_t stream = 0;
            if ( offset == 0 )
            {
                stream = load_le32( packet + 7 );
                if ( check != zero_id( stream ) )
                    return refuse( ReceiveResult::no_base );
            }
            else
            {
                const Slot * held = slots_[uint16_t( s - offset ) % History];
                if ( !holds( held, uint16_t( s - offset ) ) || held->id != check )
                    return refuse( ReceiveResult::no_base );
                base = &held->view;
                stream = held->stream;
            }
            if ( has_left( stream ) )
                return refuse( ReceiveResult::no_base );
            const bool starts = offset == 0 && ( !read_ || stream != stream_ );
            const bool takes = starts || ( stream == stream_ && sequence_newer( s, newest_ ) );
            if ( !takes && uint16_t( newest_ - s ) >= History )
                return refuse( ReceiveResult::range );

            // The delta, decoded into the spare view: a refusal leaves the
            // history as it was.
            const size_t delta = bytes - n;
            reserve( delta + 8 );
            if ( spare_ == NULL )
                spare_ = new Slot();
            memcpy( buffer_, packet + n, delta );
            memset( buffer_ + delta, 0, 8 );
            serialize::ReadStream in( buffer_, int64_t( delta ) );
            switch ( read_delta( in, int64_t( delta ), *base, spare_->view ) )
            {
            case ReadResult::ok: break;
            case ReadResult::refused: return refuse( ReceiveResult::refused );
            case ReadResult::trailing: return refuse( ReceiveResult::trailing );
            }

            // Accepted: the view takes slot s mod History, whatever it held.
            spare_->seq = s;
            spare_->id = crc32( 0, packet, bytes );
            spare_->stream = stream;
            spare_->full = true;
            Slot * old = slots_[s % History];
            slots_[s % History] = spare_;
            spare_ = old;
            if ( starts && on_ && stream != stream_ )
                leave();
            if ( takes )
            {
                newest_ = s;
                stream_ = stream;
                read_ = on_ = true;
            }
            out.CopyFrom( slots_[s % History]->view );
            result_ = ReceiveResult::ok;
            return true;
        }

        // ack is the sequence to acknowledge: the newest read, or
        // {{SNAP_NO_ACK}} before the first (as snapshot.Receiver's Ack).
        uint16_t ack() const { return read_ ? newest_ : uint16_t( {{SNAP_NO_ACK}} ); }

        // result is why the last read refused its packet (ok after an
        // accepted one, and before any read).
        ReceiveResult result() const { return result_; }

        // reset forgets every view, as a new receiver would, after a
        // reconnect; it still refuses the streams it left, and leaves the
        // one it was on when a packet starts another (snapshot.Receiver's
        // Reset).
        void reset()
        {
            read_ = false;
            for ( int i = 0; i < History; i++ )
            {
                if ( slots_[i] != NULL )
                    slots_[i]->full = false;
            }
        }

        // view is the view the receiver holds under seq, or NULL: the
        // receiver's own, valid until a packet of a sequence History or
        // more newer is accepted (which reuses its memory) or reset. What a
        // packet built on seq is decoded against.
        const T * view( uint16_t seq ) const
        {
            const Slot * held = slots_[seq % History];
            return holds( held, seq ) ? &held->view : NULL;
        }

    private:
        struct Slot
        {
            T view;
            uint16_t seq;
            uint32_t id;      // the CRC-32 of the packet that produced the view
            uint32_t stream;  // the value its ids chain from
            bool full;
            Slot() : view(), seq( 0 ), id( 0 ), stream( 0 ), full( false ) {}
        };

        bool refuse( ReceiveResult why )
        {
            result_ = why;
            return false;
        }

        // holds reports whether slot holds the view of sequence seq: read,
        // and within the last History sequences up to the newest.
        bool holds( const Slot * slot, uint16_t seq ) const
        {
            return read_ && slot != NULL && slot->full && slot->seq == seq && uint16_t( newest_ - seq ) < History;
        }

        // zero_id is the id of the zero base of a stream: the CRC-32 of its
        // value's 4 little-endian bytes.
        static uint32_t zero_id( uint32_t stream )
        {
            const uint8_t b[4] = { uint8_t( stream ), uint8_t( stream >> 8 ), uint8_t( stream >> 16 ), uint8_t( stream >> 24 ) };
            return crc32( 0, b, 4 );
        }

        bool has_left( uint32_t stream ) const
        {
            for ( int i = 0; i < nleft_; i++ )
            {
                if ( left_[i] == stream )
                    return true;
            }
            return false;
        }

        // leave adds the current stream to the streams left (the last
        // {{SNAP_LEFT_STREAMS}} are kept).
        void leave()
        {
            if ( has_left( stream_ ) )
                return;
            left_[next_left_] = stream_;
            next_left_ = ( next_left_ + 1 ) % {{SNAP_LEFT_STREAMS}};
            if ( nleft_ < {{SNAP_LEFT_STREAMS}} )
                nleft_++;
        }

        // reserve makes the buffer hold at least n bytes.
        void reserve( size_t n )
        {
            if ( n <= capacity_ )
                return;
            size_t c = capacity_ < 32 ? 64 : 2 * capacity_;
            if ( c < n )
                c = n;
            uint8_t * b = new uint8_t[c];
            delete [] buffer_;
            buffer_ = b;
            capacity_ = c;
        }

        Slot * slots_[History];  // by sequence modulo History; NULL until a packet for the slot is accepted
        T zero_;                 // the zero base, never written
        Slot * spare_;           // what the next packet decodes into
        uint8_t * buffer_;       // the delta being read, and 8 bytes after it
        size_t capacity_;
        uint16_t newest_;        // the newest sequence read (when read_)
        uint32_t stream_;        // the stream of the newest view
        bool read_;              // a packet was read since creation or reset
        bool on_;                // a packet was read since creation: stream_ is the current stream, which reset keeps
        uint32_t left_[{{SNAP_LEFT_STREAMS}}];  // the streams left, the last {{SNAP_LEFT_STREAMS}}
        int nleft_;              // how many left_ holds
        int next_left_;          // where the next one goes
        ReceiveResult result_;
    };
}

#endif // BITPACK_GEN_RUNTIME_4
// ---------------------------------------------------------------------------
