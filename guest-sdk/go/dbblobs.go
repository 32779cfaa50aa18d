package endpoints

import (
	"encoding/base64"
	"fmt"
	"slices"
)

// A query's result lists the positions of its blob values in a "blobs"
// member (abi/README.md §4.5): a blob is a base64 string on the wire,
// which nothing else tells from text.

// blobPos is the position of a blob value in a result: its row and its
// column, from 0.
type blobPos struct{ row, col int }

// maxBlobIndex bounds a row or column index of "blobs": more than a
// result of limits.sqlResultBytes can hold, less than an int32.
const maxBlobIndex = 1<<31 - 1

// parseBlobs decodes a result's "blobs" member, d: an array of [row,
// column] pairs of integers from 0, each column less than columns. The
// positions are returned sorted, without repeats, whatever their order in
// d; nil for an empty array.
func parseBlobs(d []byte, columns int) ([]blobPos, error) {
	var blobs []blobPos
	sorted := true
	err := eachElement(d, func(pair []byte) error {
		var p [2]int
		n := 0
		err := eachElement(pair, func(v []byte) error {
			if n == 2 {
				return errBlobPair(pair, columns)
			}
			i, ok := blobIndex(v)
			if !ok {
				return errBlobPair(pair, columns)
			}
			p[n] = i
			n++
			return nil
		})
		if err != nil {
			return err
		}
		if n != 2 || p[1] >= columns {
			return errBlobPair(pair, columns)
		}
		b := blobPos{p[0], p[1]}
		if len(blobs) > 0 && compareBlobs(blobs[len(blobs)-1], b) >= 0 {
			sorted = false
		}
		blobs = append(blobs, b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%q: %w", "blobs", err)
	}
	if !sorted {
		slices.SortFunc(blobs, compareBlobs)
		blobs = slices.Compact(blobs)
	}
	return blobs, nil
}

// compareBlobs orders positions by row, then column.
func compareBlobs(a, b blobPos) int {
	if a.row != b.row {
		return a.row - b.row
	}
	return a.col - b.col
}

// blobIndex decodes a row or column index of "blobs": decimal digits
// without a sign or a leading zero, at most maxBlobIndex.
func blobIndex(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 10 || (v[0] == '0' && len(v) > 1) {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= maxBlobIndex
}

func errBlobPair(pair []byte, columns int) error {
	return fmt.Errorf("got %.40s, want a [row, column] pair of integers from 0, the column less than the result's %d columns", pair, columns)
}

// isBlob reports whether the value at row r, column c is a blob, in
// blobs as parseBlobs returns them.
func isBlob(blobs []blobPos, r, c int) bool {
	_, found := slices.BinarySearchFunc(blobs, blobPos{r, c}, compareBlobs)
	return found
}

// decodeBlob decodes a blob value: a JSON string of standard base64.
func decodeBlob(raw []byte) ([]byte, error) {
	s, err := decodeString(raw)
	if err != nil {
		return nil, fmt.Errorf("a blob: %w", err)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("a blob that is not base64: %w", err)
	}
	return b, nil
}
