package database

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/database/internal/jsonquote"
)

// ErrParams is the error of [DecodeParams] for parameters that are not a
// JSON array of values.
var ErrParams = errors.New("parameters must be a JSON array of null, true, false, numbers, strings and {\"$blob\": \"<base64>\"} objects")

// DecodeParams decodes a statement's parameters (abi/README.md §4.5): a JSON
// array of null, booleans, numbers (int64 when written as an integer, which
// must then be in range; float64 when written with a fraction or an
// exponent), strings and {"$blob": "<base64>"} objects ([]byte). Empty
// data is no parameters.
//
//	DecodeParams([]byte(`[7, "Ada", null, {"$blob": "AAE="}]`))
//	// []any{int64(7), "Ada", nil, []byte{0, 1}}
func DecodeParams(data []byte) ([]any, error) {
	if len(data) == 0 {
		return nil, nil
	}
	if args, ok := decodeSimpleParams(nil, data); ok {
		return args, nil
	}
	return decodeParamsJSON(data)
}

// AppendParams appends the parameters in data, decoded as [DecodeParams]
// decodes them, to dst and returns the extended slice: a caller that runs
// statement after statement decodes each one's parameters into the slice
// of the last instead of a new one. On an error it returns dst as it was.
func AppendParams(dst []any, data []byte) ([]any, error) {
	if len(data) == 0 {
		return dst, nil
	}
	if args, ok := decodeSimpleParams(dst, data); ok {
		return args, nil
	}
	args, err := decodeParamsJSON(data)
	if err != nil {
		return dst, err
	}
	return append(dst, args...), nil
}

// decodeParamsJSON is DecodeParams through encoding/json: every case, and
// the errors. The array is read value by value, so that one of more than
// abi.DBParamsMax values is refused before it is decoded whole, and a
// parameter that is an array or an object other than a blob at its first
// token (decodeParam).
func decodeParamsJSON(data []byte) ([]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	switch tok, err := d.Token(); {
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrParams, err)
	case tok == nil:
		return nil, fmt.Errorf("%w: got null", ErrParams)
	case tok != json.Delim('['):
		return nil, fmt.Errorf("%w: got %v", ErrParams, tok)
	}
	raw := []any{}
	for d.More() {
		if len(raw) == abi.DBParamsMax {
			return nil, tooManyParams()
		}
		v, err := decodeParam(d, len(raw)+1)
		if err != nil {
			return nil, err
		}
		raw = append(raw, v)
	}
	if _, err := d.Token(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrParams, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: text after the array", ErrParams)
	}
	for i, v := range raw {
		switch v := v.(type) {
		case json.Number:
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				raw[i] = n
			} else if !strings.ContainsAny(string(v), ".eE") {
				// An integer written as one, which a float64 would round
				// (18446744073709551615 to ...552000): never silently.
				return nil, fmt.Errorf("%w: parameter %d: the integer %s is outside the range of a 64-bit integer; pass it as a string (a numeric column takes its text)", ErrParams, i+1, v)
			} else if f, err := strconv.ParseFloat(string(v), 64); err == nil {
				raw[i] = f
			} else {
				return nil, fmt.Errorf("%w: parameter %d: %v", ErrParams, i+1, err)
			}
		}
	}
	return raw, nil
}

// decodeParam reads parameter n of the array d reads, token by token: a
// scalar (nil, a bool, a string, a json.Number), or the blob object
// {"$blob": "<base64>"} as its bytes. An array, or any
// other object, is refused at its first token, unread: decoded whole, a
// guest's "[[0,0,...]]" would cost the host gigabytes of heap for one
// parameter that is refused anyway.
func decodeParam(d *json.Decoder, n int) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: parameter %d: %v", ErrParams, n, err)
	}
	switch tok {
	case json.Delim('['):
		return nil, fmt.Errorf("%w: parameter %d is an array", ErrParams, n)
	case json.Delim('{'):
	default:
		return tok, nil
	}
	notBlob := fmt.Errorf("%w: parameter %d is an object other than {%q: \"<base64>\"}", ErrParams, n, abi.DBParamBlob)
	if key, err := d.Token(); err != nil || key != abi.DBParamBlob {
		return nil, notBlob
	}
	value, err := d.Token()
	s, ok := value.(string)
	if err != nil || !ok {
		return nil, notBlob
	}
	if end, err := d.Token(); err != nil || end != json.Delim('}') {
		return nil, notBlob
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: parameter %d: %q is not base64: %v", ErrParams, n, abi.DBParamBlob, err)
	}
	return b, nil
}

// tooManyParams is the error of a params array of more than
// abi.DBParamsMax values.
func tooManyParams() error {
	return fmt.Errorf("%w: more than %d parameters (abi.DBParamsMax), which no statement takes", ErrParams, abi.DBParamsMax)
}

// AppendQueryResult appends rows as an abi.DBQueryResult JSON object to
// dst and closes them; past max bytes (the whole result, its "blobs"
// included) it stops with a [CodeTooLarge] error, so a result is never
// built larger than the limit.
//
//	{"columns":["id","name"],"rows":[[1,"Ada"],[2,null]]}
//
// When values are blobs, a "blobs" member between the columns and the
// rows lists their [row, column] positions (from 0), in order, so that a
// guest tells a blob's base64 from text; without blobs the member is
// absent.
//
//	{"columns":["id","photo"],"blobs":[[0,1]],"rows":[[1,"AAE="],[2,null]]}
func AppendQueryResult(dst []byte, rows Rows, max int) (_ []byte, err error) {
	defer func() {
		if cerr := rows.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	start := len(dst)
	dst = append(dst, `{"columns":[`...)
	for i, c := range rows.Columns() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonquote.String(dst, c)
	}
	dst = append(dst, "],"...)
	rowsAt := len(dst)
	dst = append(dst, `"rows":[`...)
	// Every byte the guest receives counts: the closing "]}" too.
	if len(dst)-start+len("]}") > max {
		return dst, tooLarge(max)
	}
	// blobs is the "blobs" member as it is built, `"blobs":[[0,1],[3,1]`,
	// to go before the rows when a blob came; cols the blob columns of
	// the current row.
	var blobs []byte
	var cols []int
	appender, direct := rows.(RowAppender)
	for r := 0; rows.Next(); r++ {
		if r > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '[')
		cols = cols[:0]
		if direct {
			// What the row may take: the bound less what follows it.
			limit := start + max - len("]}") - len("]")
			if blobs != nil {
				limit -= len(blobs) + len("],")
			}
			var err error
			if dst, cols, err = appender.AppendRow(dst, cols, limit); err != nil {
				if v, ok := err.(*valueTooLargeError); ok {
					err = v.result(rows.Columns(), r, max)
				} else if CodeOf(err) == CodeTooLarge {
					err = tooLarge(max)
				}
				return dst, err
			}
		} else {
			vals, err := rows.Values()
			if err != nil {
				return dst, err
			}
			for i, v := range vals {
				if i > 0 {
					dst = append(dst, ',')
				}
				if _, ok := v.([]byte); ok {
					cols = append(cols, i)
				}
				dst = AppendValue(dst, v)
			}
		}
		dst = append(dst, ']')
		for _, c := range cols {
			blobs = appendBlobPosition(blobs, r, c)
		}
		size := len(dst) - start + len("]}")
		if blobs != nil {
			size += len(blobs) + len("],")
		}
		if size > max {
			return dst, tooLarge(max)
		}
	}
	if err := rows.Err(); err != nil {
		return dst, err
	}
	if blobs != nil {
		dst = slices.Insert(dst, rowsAt, append(blobs, "],"...)...)
	}
	return append(dst, "]}"...), nil
}

// tooLarge is the error of a result larger than max bytes.
func tooLarge(max int) error {
	return &Error{Code: CodeTooLarge, Message: fmt.Sprintf("the result is larger than limits.sqlResultBytes (%d bytes): select fewer rows (LIMIT) or columns", max)}
}

// valueTooLargeError is the error a [RowAppender] returns for a text or
// blob value that would take the result past its bound: which column, and
// the value's size in bytes (a blob's before base64). [AppendQueryResult]
// turns it into the [CodeTooLarge] *Error the guest sees, naming the
// column, the row and what to do.
type valueTooLargeError struct {
	Column int
	Bytes  int
	Blob   bool
}

func (e *valueTooLargeError) Error() string {
	return fmt.Sprintf("the value of column %d (%d bytes) takes the result past its bound", e.Column+1, e.Bytes)
}

// result is the guest's error for the value at row (from 0) of a result
// of columns bounded by max bytes: a single value too large is not cured
// by fewer rows or columns, and a blob counts as its base64 text, which
// the setting bounds.
func (e *valueTooLargeError) result(columns []string, row, max int) error {
	name := strconv.Itoa(e.Column + 1)
	if e.Column < len(columns) {
		name = columns[e.Column]
	}
	kind := "text"
	if e.Blob {
		kind = "blob, which counts as its base64 text, 4/3 of its size"
	}
	return &Error{Code: CodeTooLarge, Err: e, Message: fmt.Sprintf("the result is larger than limits.sqlResultBytes (%d bytes) at the value of column %s in row %d (a %d-byte %s): select a part of the value (substr), fewer rows (LIMIT) or columns, or raise limits.sqlResultBytes", max, name, row+1, e.Bytes, kind)}
}

// appendBlobPosition appends the position of the blob at row r, column c
// to the "blobs" member being built, starting it at the first.
func appendBlobPosition(blobs []byte, r, c int) []byte {
	if blobs == nil {
		blobs = append(blobs, `"blobs":[`...)
	} else {
		blobs = append(blobs, ',')
	}
	blobs = append(blobs, '[')
	blobs = strconv.AppendInt(blobs, int64(r), 10)
	blobs = append(blobs, ',')
	blobs = strconv.AppendInt(blobs, int64(c), 10)
	return append(blobs, ']')
}

// RowAppender is implemented by [Rows] that append their current row's
// values as JSON themselves, the way [AppendValue] would, straight from
// the driver's memory: no value is boxed in an interface or copied on the
// way. [AppendQueryResult] uses it instead of Values when rows have it; a
// driver implements it for the results whose types it can read so.
type RowAppender interface {
	// AppendRow appends the current row's values, separated by commas,
	// without the brackets, and the indexes (from 0) of the columns
	// whose values are blobs to blobs. limit is the length dst may reach:
	// a value that would take it past limit may fail the row with a
	// [CodeTooLarge] error before it is copied (a driver whose values are
	// bounded as they arrive, see [Options.MaxRowBytes], may ignore it;
	// this package's SQLite driver says which value, valueTooLargeError).
	AppendRow(dst []byte, blobs []int, limit int) ([]byte, []int, error)
}

// AppendValue appends a value a driver gives (nil, bool, int64, float64,
// string, []byte) as JSON: integers exact, blobs base64, NaN and
// infinities (which JSON lacks) null. Any other type is its fmt text.
func AppendValue(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, v)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case float64:
		return appendFloat(dst, v)
	case string:
		dst = jsonquote.String(dst, v)
		return dst
	case []byte:
		return appendBlob(dst, v)
	default:
		dst = jsonquote.String(dst, fmt.Sprint(v))
		return dst
	}
}

// appendFloat appends f as a JSON number, null for NaN and the
// infinities, which JSON lacks.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

// appendBlob appends b as a JSON string of its standard base64.
func appendBlob(dst, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// AppendExecResult appends r as an abi.DBExecResult JSON object.
//
//	{"rowsAffected":1,"lastInsertId":7}
func AppendExecResult(dst []byte, r ExecResult) []byte {
	dst = append(dst, `{"rowsAffected":`...)
	dst = strconv.AppendInt(dst, r.RowsAffected, 10)
	if r.HasLastInsertID {
		dst = append(dst, `,"lastInsertId":`...)
		dst = strconv.AppendInt(dst, r.LastInsertID, 10)
	}
	return append(dst, '}')
}

// AppendError appends e as an abi.DBErrorResult JSON object: the
// constraint's name and kind, and the database's detail, when e has
// them.
//
//	{"error":{"code":"syntax","message":"near \"SELEC\": syntax error"}}
//	{"error":{"code":"constraint","constraint":"users.email","kind":"unique","message":"UNIQUE constraint failed: users.email"}}
//	{"error":{"code":"constraint","constraint":"users_email_key","kind":"unique","message":"duplicate key value violates unique constraint \"users_email_key\"","detail":"Key (email)=(ada@example.com) already exists."}}
func AppendError(dst []byte, e *Error) []byte {
	dst = append(dst, `{"error":{"code":`...)
	dst = jsonquote.String(dst, string(e.Code))
	if e.Constraint != "" {
		dst = append(dst, `,"constraint":`...)
		dst = jsonquote.String(dst, e.Constraint)
	}
	if e.Kind != "" {
		dst = append(dst, `,"kind":`...)
		dst = jsonquote.String(dst, string(e.Kind))
	}
	dst = append(dst, `,"message":`...)
	dst = jsonquote.String(dst, e.Message)
	if e.Detail != "" {
		dst = append(dst, `,"detail":`...)
		dst = jsonquote.String(dst, e.Detail)
	}
	return append(dst, "}}"...)
}
