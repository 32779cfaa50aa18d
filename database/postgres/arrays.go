package postgres

import (
	"sync"

	"github.com/jackc/pgx/v5/pgtype"
)

// nestedArrays is an array codec whose values, read for a row, keep the
// array's dimensions: an array of n dimensions is n levels of []any (the
// rows of a matrix), where pgx's ArrayCodec gives its elements flattened
// ({{1,2},{3,4}} as [1 2 3 4]). Its lower bounds are dropped:
// '[0:1]={1,2}' is [1 2], as '{1,2}' is. Elements are decoded as pgx's
// codec decodes them; encoding parameters is pgx's codec's.
type nestedArrays struct{ *pgtype.ArrayCodec }

// DecodeValue is the array in src as nested []any (nest); NULL is nil.
func (c nestedArrays) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, nil
	}
	var a pgtype.Array[any]
	if err := m.PlanScan(oid, format, &a).Scan(src, &a); err != nil {
		return nil, err
	}
	return nest(a.Elements, a.Dims), nil
}

// nest is elems, an array's elements in PostgreSQL's order (the last
// dimension varying fastest), as one []any per level of dims. An empty
// array (no dimensions) is an empty []any, not nil, whose JSON is [].
func nest(elems []any, dims []pgtype.ArrayDimension) []any {
	if elems == nil {
		elems = []any{}
	}
	if len(dims) <= 1 {
		return elems
	}
	n := int(dims[0].Length)
	if n == 0 {
		return []any{}
	}
	size := len(elems) / n
	out := make([]any, n)
	for i := range out {
		out[i] = nest(elems[i*size:(i+1)*size:(i+1)*size], dims[1:])
	}
	return out
}

// builtinArrays are pgx's array types, each with nestedArrays for its
// codec, made once.
var builtinArrays = sync.OnceValue(func() []*pgtype.Type {
	m := pgtype.NewMap()
	var types []*pgtype.Type
	// PostgreSQL's own types have OIDs below its FirstNormalObjectId
	// (16384), as pgx's, which knows no others.
	for oid := uint32(1); oid < 16384; oid++ {
		t, ok := m.TypeForOID(oid)
		if !ok {
			continue
		}
		if ac, ok := t.Codec.(*pgtype.ArrayCodec); ok {
			types = append(types, &pgtype.Type{Name: t.Name, OID: t.OID, Codec: nestedArrays{ac}})
		}
	}
	return types
})

// registerNestedArrays makes pgx's array types read as nested arrays
// (nestedArrays) on the connection whose map m is. A type registered
// after it replaces its own (json and jsonb's: open).
func registerNestedArrays(m *pgtype.Map) {
	for _, t := range builtinArrays() {
		m.RegisterType(t)
	}
}
