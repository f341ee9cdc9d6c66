package model

// A struct's delta items (docs/wire.md, Delta encoding): its fields that
// are not structs, and the items of those that are, in wire order.

// FieldUses are the fields a struct value sends, in wire order: this
// use's, or its type's own.
func FieldUses(v *Value) []*FieldUse {
	if v.Fields != nil {
		return v.Fields
	}
	uses := make([]*FieldUse, 0, len(v.Type.Fields))
	for _, m := range v.Type.Fields {
		uses = append(uses, &FieldUse{Member: m, Value: m.Value})
	}
	return uses
}

// StructFields are the values of a struct value's FieldUses.
func StructFields(v *Value) []*Value {
	var out []*Value
	for _, u := range FieldUses(v) {
		out = append(out, u.Value)
	}
	return out
}

// IsItem reports whether a value that is not a struct is an item of its
// struct's delta: a value that can change (bitpack's Field.DeltaItem).
func IsItem(v *Value) bool { return v.item }

// DeltaItems are v's items: v itself, or for a struct its fields' items,
// recursively.
func DeltaItems(v *Value) []*Value {
	if !v.Op.IsStruct() {
		if IsItem(v) {
			return []*Value{v}
		}
		return nil
	}
	var out []*Value
	for _, f := range StructFields(v) {
		out = append(out, DeltaItems(f)...)
	}
	return out
}

// ItemCount is the number of v's items.
func ItemCount(v *Value) int { return len(DeltaItems(v)) }
