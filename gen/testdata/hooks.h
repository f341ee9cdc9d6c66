// hooks.h: the C++ side of the test table's hook types, written by hand as
// a generated header asks its users to (a type that encodes itself in Go
// with MarshalBits/UnmarshalBits must be defined before the header).

// Stamp is gen.Stamp: the high 4 of its 12 bits, an align, the low 8;
// values above 4095 are refused, as its Go MarshalBits refuses them.
struct Stamp
{
    uint16_t v;

    template <typename Stream> bool Serialize( Stream & stream )
    {
        if ( Stream::IsWriting && v > 4095 )
            return false;
        uint32_t high = v >> 8, low = v & 255;
        serialize_bits( stream, high, 4 );
        serialize_align( stream );
        serialize_bits( stream, low, 8 );
        if ( Stream::IsReading )
            v = uint16_t( high << 8 | low );
        return true;
    }
};

// Nib is gen.Nib: 4 bits, of which 15 is reserved (read, but refused on
// write, as its Go MarshalBits refuses it).
struct Nib
{
    uint8_t v;

    template <typename Stream> bool Serialize( Stream & stream )
    {
        if ( Stream::IsWriting && v > 14 )
            return false;
        uint32_t bits = v;
        serialize_bits( stream, bits, 4 );
        if ( Stream::IsReading )
            v = uint8_t( bits );
        return true;
    }
};
