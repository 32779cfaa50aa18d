package postgres

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/wasmendpoints/endpoints/database/internal/jsonquote"
)

// wireKind is how rows.AppendRow reads a column's value from the bytes
// the server sent, without pgx decoding it into a Go value first: the
// types most results hold. Any other type is wireOther.
type wireKind uint8

const (
	wireOther  wireKind = iota
	wireText            // text, varchar, char(n), name: UTF-8 in either format
	wireInt8            // bigint, binary: 8 bytes, big-endian
	wireInt4            // integer, binary: 4 bytes
	wireInt2            // smallint, binary: 2 bytes
	wireOID             // oid, binary: 4 bytes, unsigned
	wireBool            // boolean, binary: 1 byte
	wireFloat8          // double precision, binary: IEEE 754, 8 bytes
	wireFloat4          // real, binary: IEEE 754, 4 bytes
	wireBytea           // bytea, binary: the bytes
)

// kindOf is how a column of the type and format fd describes is read;
// wireOther when it is not read from the wire (numbers in the text
// format, dates, numeric, json, ...).
func kindOf(fd pgconn.FieldDescription) wireKind {
	switch fd.DataTypeOID {
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID:
		return wireText
	}
	if fd.Format != pgtype.BinaryFormatCode {
		return wireOther
	}
	switch fd.DataTypeOID {
	case pgtype.Int8OID:
		return wireInt8
	case pgtype.Int4OID:
		return wireInt4
	case pgtype.Int2OID:
		return wireInt2
	case pgtype.OIDOID:
		return wireOID
	case pgtype.BoolOID:
		return wireBool
	case pgtype.Float8OID:
		return wireFloat8
	case pgtype.Float4OID:
		return wireFloat4
	case pgtype.ByteaOID:
		return wireBytea
	}
	return wireOther
}

// wireSizes are the lengths of the fixed-size kinds' values.
var wireSizes = [...]int{wireInt8: 8, wireInt4: 4, wireInt2: 2, wireOID: 4, wireBool: 1, wireFloat8: 8, wireFloat4: 4}

// appendWire appends the value raw (nil for NULL) of a column of kind k
// as JSON, as convert and then database.AppendValue would: integers
// exact, texts quoted, NaN and the infinities null, blobs base64.
func appendWire(dst []byte, k wireKind, raw []byte) ([]byte, error) {
	if raw == nil {
		return append(dst, "null"...), nil
	}
	if int(k) < len(wireSizes) && wireSizes[k] != 0 && len(raw) != wireSizes[k] {
		return dst, fmt.Errorf("the server sent %d bytes for a value of %d", len(raw), wireSizes[k])
	}
	switch k {
	case wireText:
		dst = jsonquote.Bytes(dst, raw)
	case wireInt8:
		dst = strconv.AppendInt(dst, int64(binary.BigEndian.Uint64(raw)), 10)
	case wireInt4:
		dst = strconv.AppendInt(dst, int64(int32(binary.BigEndian.Uint32(raw))), 10)
	case wireInt2:
		dst = strconv.AppendInt(dst, int64(int16(binary.BigEndian.Uint16(raw))), 10)
	case wireOID:
		dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(raw)), 10)
	case wireBool:
		dst = strconv.AppendBool(dst, raw[0] != 0)
	case wireFloat8:
		dst = appendFloat(dst, math.Float64frombits(binary.BigEndian.Uint64(raw)))
	case wireFloat4:
		dst = appendFloat(dst, float64(math.Float32frombits(binary.BigEndian.Uint32(raw))))
	case wireBytea:
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, raw)
		dst = append(dst, '"')
	default:
		return dst, fmt.Errorf("no wire reading for kind %d", k)
	}
	return dst, nil
}

// appendFloat appends f as database.AppendValue does a float64: a JSON
// number, null for NaN and the infinities, which JSON lacks.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}
