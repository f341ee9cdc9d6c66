// Package bitwindow is the part of a bitio.Reader that package bitpack's
// decoder reads and moves in place: the packet's bytes and the read
// position. bitio keeps a Window in an unexported field of every Reader
// (win), which only bitpack reaches (its unsafe.go: readerWindow,
// setReaderPos), so that no code outside the module can move a Reader
// past its bytes. The decoder's read loop keeps the position in a local,
// loads the words of fixed-width runs straight from Data (8 bytes at a
// time, no bounds checks), and stores the position back before it calls
// anything that reads through the Reader.
//
// What bitio keeps true, for the loads to stay inside the packet (checked
// by bitio's window_test.go):
//
//   - while no error is recorded, every bit of Data is the packet's: the
//     Reader's end is 8*len(Data), and Pos (Reader.BitsRead) is at most
//     that;
//   - once an error is recorded, Data is nil (so a load of 8 bytes is
//     never in range) and stays nil until Reset;
//   - Pos is the only position: setting it to a bit at most 8*len(Data)
//     is moving the Reader there (the decoder sets only positions it has
//     read up to).
package bitwindow

// Window is a Reader's bytes and position.
type Window struct {
	Data []byte // the packet; nil after an error
	Pos  int    // bits consumed
}
