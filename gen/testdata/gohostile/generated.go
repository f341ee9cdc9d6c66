package gohostile

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

// Generated are the functions of bitpack_gen.go, by type.
var Generated = map[reflect.Type]Pair{
	reflect.TypeFor[AtkWide]():          pair(bitpackAppendAtkWide, bitpackUnmarshalAtkWide),
	reflect.TypeFor[AtkZero]():          pair(bitpackAppendAtkZero, bitpackUnmarshalAtkZero),
	reflect.TypeFor[AtkUnits]():         pair(bitpackAppendAtkUnits, bitpackUnmarshalAtkUnits),
	reflect.TypeFor[AtkNamed]():         pair(bitpackAppendAtkNamed, bitpackUnmarshalAtkNamed),
	reflect.TypeFor[AtkQuat]():          pair(bitpackAppendAtkQuat, bitpackUnmarshalAtkQuat),
	reflect.TypeFor[AtkBytes]():         pair(bitpackAppendAtkBytes, bitpackUnmarshalAtkBytes),
	reflect.TypeFor[AtkOff]():           pair(bitpackAppendAtkOff, bitpackUnmarshalAtkOff),
	reflect.TypeFor[AtkNest]():          pair(bitpackAppendAtkNest, bitpackUnmarshalAtkNest),
	reflect.TypeFor[AtkFloat]():         pair(bitpackAppendAtkFloat, bitpackUnmarshalAtkFloat),
	reflect.TypeFor[AtkOther]():         pair(bitpackAppendAtkOther, bitpackUnmarshalAtkOther),
	reflect.TypeFor[AtkOtherPrivate]():  pair(bitpackAppendAtkOtherPrivate, bitpackUnmarshalAtkOtherPrivate),
	reflect.TypeFor[AtkIntRange32]():    pair(bitpackAppendAtkIntRange32, bitpackUnmarshalAtkIntRange32),
	reflect.TypeFor[AtkIntRange]():      pair(bitpackAppendAtkIntRange, bitpackUnmarshalAtkIntRange),
	reflect.TypeFor[AtkUintRange]():     pair(bitpackAppendAtkUintRange, bitpackUnmarshalAtkUintRange),
	reflect.TypeFor[AtkGrow]():          pair(bitpackAppendAtkGrow, bitpackUnmarshalAtkGrow),
	reflect.TypeFor[AtkInt]():           pair(bitpackAppendAtkInt, bitpackUnmarshalAtkInt),
	reflect.TypeFor[AtkAlias]():         pair(bitpackAppendAtkAlias, bitpackUnmarshalAtkAlias),
	reflect.TypeFor[AtkStr]():           pair(bitpackAppendAtkStr, bitpackUnmarshalAtkStr),
	reflect.TypeFor[AtkCF1]():           pair(bitpackAppendAtkCF1, bitpackUnmarshalAtkCF1),
	reflect.TypeFor[AtkCF2]():           pair(bitpackAppendAtkCF2, bitpackUnmarshalAtkCF2),
	reflect.TypeFor[AtkCF3]():           pair(bitpackAppendAtkCF3, bitpackUnmarshalAtkCF3),
	reflect.TypeFor[AtkCF4]():           pair(bitpackAppendAtkCF4, bitpackUnmarshalAtkCF4),
	reflect.TypeFor[AtkGenericFields](): pair(bitpackAppendAtkGenericFields, bitpackUnmarshalAtkGenericFields),
	reflect.TypeFor[AtkLocals]():        pair(bitpackAppendAtkLocals, bitpackUnmarshalAtkLocals),
	reflect.TypeFor[AtkBB]():            pair(bitpackAppendAtkBB, bitpackUnmarshalAtkBB),
	reflect.TypeFor[AtkTime]():          pair(bitpackAppendAtkTime, bitpackUnmarshalAtkTime),
	reflect.TypeFor[AtkOrder]():         pair(bitpackAppendAtkOrder, bitpackUnmarshalAtkOrder),
}

// Append and Unmarshal call T's generated functions.
func Append[T any](dst []byte, v *T) ([]byte, bool) {
	return Generated[reflect.TypeFor[T]()].Append(dst, v)
}

func Unmarshal[T any](data []byte, v *T) bool {
	return Generated[reflect.TypeFor[T]()].Unmarshal(data, v)
}
