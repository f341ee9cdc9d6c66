// hooks.h: the C++ side of the test table's hook types, written by hand as
// a generated header asks its users to (a type that encodes itself in Go
// with MarshalBits/UnmarshalBits must be defined before the header).

// Stamp is gen.Stamp: 12 bits; values above 4095 are refused, as its Go
// MarshalBits refuses them.
struct Stamp
{
    uint16_t v;

    template <typename Stream> bool Serialize( Stream & stream )
    {
        if ( Stream::IsWriting && v > 4095 )
            return false;
        serialize_bits( stream, v, 12 );
        return true;
    }
};
