// hooks.cs: the C# half of the test table's hook types, written by hand as
// a generated file asks its users to (a type that encodes itself in Go with
// MarshalBits/UnmarshalBits is a partial class there, completed here).

namespace BitpackGen.Table
{
    // Stamp is gen.Stamp: the high 4 of its 12 bits, an align, the low 8;
    // values above 4095 are refused, as its Go MarshalBits refuses them.
    public sealed partial class Stamp
    {
        public ushort v;

        public static bool Read(ref BitpackReader r, out Stamp value)
        {
            uint high, low;
            value = null;
            if (!r.ReadBits(4, out high) || !r.Align() || !r.ReadBits(8, out low))
                return false;
            value = new Stamp();
            value.v = (ushort)(high << 8 | low);
            return true;
        }

        public bool WriteTo(ref BitpackWriter w)
        {
            if (v > 4095)
                return w.Fail("hook refused the value: stamp out of range");
            return w.WriteBits((uint)(v >> 8), 4) && w.Align() && w.WriteBits((uint)(v & 255), 8);
        }
    }

    // Nib is gen.Nib: 4 bits, of which 15 is reserved (read, but refused
    // on write, as its Go MarshalBits refuses it).
    public sealed partial class Nib
    {
        public byte v;

        public static bool Read(ref BitpackReader r, out Nib value)
        {
            uint bits;
            value = null;
            if (!r.ReadBits(4, out bits))
                return false;
            value = new Nib();
            value.v = (byte)bits;
            return true;
        }

        public bool WriteTo(ref BitpackWriter w)
        {
            if (v > 14)
                return w.Fail("hook refused the value: nib out of range");
            return w.WriteBits(v, 4);
        }
    }
}
