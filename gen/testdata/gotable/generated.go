package gen

import "reflect"

// Pair is a type's generated functions, called through any.
type Pair struct {
	Append    func(dst []byte, v any) ([]byte, bool)
	Unmarshal func(data []byte, v any) bool
}

func pair[T any](a func([]byte, *T) ([]byte, bool), u func([]byte, *T) bool) Pair {
	return Pair{
		Append:    func(dst []byte, v any) ([]byte, bool) { return a(dst, v.(*T)) },
		Unmarshal: func(data []byte, v any) bool { return u(data, v.(*T)) },
	}
}

// Generated are the functions of bitpack_gen.go, by type, in the
// table's order.
var Generated = map[reflect.Type]Pair{
	reflect.TypeFor[Scalars]():    pair(bitpackAppendScalars, bitpackUnmarshalScalars),
	reflect.TypeFor[Ranges]():     pair(bitpackAppendRanges, bitpackUnmarshalRanges),
	reflect.TypeFor[Bits]():       pair(bitpackAppendBits, bitpackUnmarshalBits),
	reflect.TypeFor[Floats]():     pair(bitpackAppendFloats, bitpackUnmarshalFloats),
	reflect.TypeFor[Pinned]():     pair(bitpackAppendPinned, bitpackUnmarshalPinned),
	reflect.TypeFor[Text]():       pair(bitpackAppendText, bitpackUnmarshalText),
	reflect.TypeFor[Containers](): pair(bitpackAppendContainers, bitpackUnmarshalContainers),
	reflect.TypeFor[Embeds]():     pair(bitpackAppendEmbeds, bitpackUnmarshalEmbeds),
	reflect.TypeFor[Deep]():       pair(bitpackAppendDeep, bitpackUnmarshalDeep),
	reflect.TypeFor[Rotations]():  pair(bitpackAppendRotations, bitpackUnmarshalRotations),
	reflect.TypeFor[Units]():      pair(bitpackAppendUnits, bitpackUnmarshalUnits),
	reflect.TypeFor[QuatProbe]():  pair(bitpackAppendQuatProbe, bitpackUnmarshalQuatProbe),
	reflect.TypeFor[Stamps]():     pair(bitpackAppendStamps, bitpackUnmarshalStamps),
	reflect.TypeFor[Epochs]():     pair(bitpackAppendEpochs, bitpackUnmarshalEpochs),
}

// Protos are the types bitpack_gen.go holds the generated code of, in the
// table's order.
func Protos() []any {
	return []any{Scalars{}, Ranges{}, Bits{}, Floats{}, Pinned{}, Text{}, Containers{}, Embeds{}, Deep{}, Rotations{}, Units{}, QuatProbe{}, Stamps{}, Epochs{}}
}
