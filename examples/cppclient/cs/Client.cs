// Client.cs: a C# (Unity) client of the example protocol, built on Net.cs
// (the file bitpack gen wrote from net.go). It writes a snapshot, seals it
// as bitpack.Seal does and prints the packet in hex (a Go server opens it
// with bitpack.Open and reads it with bitpack.Unmarshal), then opens and
// reads it back.
//
//   mcs -out:client.exe Net.cs Client.cs && mono client.exe

using System;
using System.Text;
using Game.Net;

static class Client
{
    const uint ProtocolId = 0x47414d45u ^ Snapshot.Fingerprint; // as bitpack.Seal(dst, AppID^fp, payload)

    static int Main()
    {
        Snapshot snapshot = new Snapshot { Tick = 42 };
        snapshot.Players = new[]
        {
            new Player { ID = 7, Health = 1000, Pos = new Vec3 { Y = -1024f, Z = 1024f }, Name = "ada", Alive = true },
            new Player { ID = 999, Name = "bob" },
        };
        byte[] payload;
        string error;
        if (!snapshot.TryWrite(out payload, out error)) // refuses what bitpack.Marshal refuses
        {
            Console.Error.WriteLine(error);
            return 1;
        }
        byte[] packet = Bitpack.Seal(ProtocolId, payload);
        StringBuilder hex = new StringBuilder();
        foreach (byte b in packet)
            hex.Append(b.ToString("x2"));
        Console.WriteLine(hex);

        // Receiving: check the CRC, then read one whole Snapshot.
        byte[] body;
        Snapshot received;
        if (!Bitpack.Open(ProtocolId, packet, out body) || !Snapshot.TryRead(body, out received, out error))
        {
            Console.Error.WriteLine("packet refused: " + error);
            return 1;
        }
        Console.WriteLine("tick " + received.Tick + ": " + received.Players.Length + " players, " + received.Players[0].Name +
            " at y=" + received.Players[0].Pos.Y.ToString(System.Globalization.CultureInfo.InvariantCulture));
        return 0;
    }
}
