package wasmbin

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/wasmendpoints/endpoints/internal/leb128"
)

// Section IDs of the data segments.
const (
	SectionData      = 11
	sectionDataCount = 12
)

// segmentHeader is the size of the header of an active data segment of
// memory 0 at an i32.const offset, at most: flags, i32.const, the offset,
// end, the size.
const segmentHeader = 1 + 1 + 5 + 1 + 5

// pageSize is the size of a page of WebAssembly memory.
const pageSize = 65536

// DefaultDataGap is the widest run of zeros [MergeData] writes between
// two segments to make them one: wider gaps keep their segments apart, so
// that an instance's memory does not touch pages no segment fills.
const DefaultDataGap = 1024

// dataSegment is an active segment of memory 0 at a constant offset.
type dataSegment struct {
	offset uint32
	init   []byte
}

// MergeData returns wasm with the runs of its data segments that lie
// close together merged into one segment each, the zeros between them
// (at most maxGap bytes) written out: what a new instance's memory holds
// is the same, but the runtime initialises it from fewer segments.
// wazero evaluates each segment's offset at every instantiation: a Go
// module has some 100,000 segments (its linker cuts the data at each run
// of zeros), which cost 3 of the 5 ms of instantiating the users
// example's bundle, each time the host makes a fresh instance of it.
// It reports whether it merged any. The zeros it writes out come to no
// more than the bytes of the data section (gaps narrower than a
// segment's header aside, which cost nothing): the module at most about
// doubles, however many small segments lie a gap apart.
//
// Segments that do not overlap write what they write in any order: Go's
// are not in the order of their offsets, and are merged in that order.
// It returns wasm itself when there is nothing to merge, or when the data
// is of a form it leaves as it is: a passive segment, one of another
// memory, an offset that is not an i32.const, segments that overlap (a
// later one overwrites an earlier one), a data count section
// (instructions may then name segments by index), an imported memory
// (the zeros between two segments would overwrite what its exporter
// wrote there), no memory, or a segment that does not fit in the
// memory's initial size (instantiating fails naming the segment by its
// index, which merging would change).
func MergeData(wasm []byte, maxGap uint32) ([]byte, bool, error) {
	sections, err := Sections(wasm)
	if err != nil {
		return nil, false, err
	}
	data, memory := -1, -1
	for i, s := range sections {
		switch s.ID {
		case sectionDataCount:
			return wasm, false, nil
		case SectionImport:
			_, memories, err := countImports(s.Payload)
			if err != nil || memories > 0 {
				return wasm, false, err
			}
		case SectionMemory:
			memory = i
		case SectionData:
			data = i
		}
	}
	if data < 0 {
		return wasm, false, nil
	}
	segs, ok, err := activeSegments(sections[data].Payload)
	if err != nil || !ok || len(segs) < 2 || memory < 0 {
		return wasm, false, err
	}
	pages, ok, err := firstMemoryPages(sections[memory].Payload)
	if err != nil || !ok {
		return wasm, false, err
	}
	if last := segs[len(segs)-1]; uint64(last.offset)+uint64(len(last.init)) > uint64(pages)*pageSize {
		return wasm, false, nil // instantiating fails: as the original does
	}
	merged := make([]dataSegment, 0, len(segs))
	// budget bounds the zeros written out: no more than the data section
	// holds, so that many small segments a gap apart do not grow the
	// module (and its decoding, and the code cache) many times over. A gap
	// no wider than a segment's header costs nothing and is not counted.
	budget := uint64(len(sections[data].Payload))
	for _, s := range segs {
		if n := len(merged); n > 0 {
			last := &merged[n-1]
			end := uint64(last.offset) + uint64(len(last.init))
			gap := uint64(s.offset) - end
			if gap <= uint64(maxGap) && (gap <= segmentHeader || gap <= budget) {
				if gap > segmentHeader {
					budget -= gap
				}
				// The first append copies: init's capacity ends with
				// it, where wasm's bytes go on.
				last.init = append(append(last.init, make([]byte, gap)...), s.init...)
				continue
			}
		}
		merged = append(merged, dataSegment{offset: s.offset, init: s.init[:len(s.init):len(s.init)]})
	}
	if len(merged) == len(segs) {
		return wasm, false, nil
	}
	payload := leb128.AppendU32(nil, uint32(len(merged)))
	for _, s := range merged {
		payload = append(payload, 0, 0x41) // active, memory 0; i32.const
		payload = leb128.AppendS32(payload, int32(s.offset))
		payload = append(payload, 0x0b) // end
		payload = leb128.AppendU32(payload, uint32(len(s.init)))
		payload = append(payload, s.init...)
	}
	out := make([]byte, 0, len(wasm)+len(payload)-len(sections[data].Payload))
	out = append(out, wasm[:sections[data].Start]...)
	out = append(out, SectionData)
	out = leb128.AppendU32(out, uint32(len(payload)))
	out = append(out, payload...)
	out = append(out, wasm[sections[data].End:]...)
	return out, true, nil
}

// activeSegments reads the segments of a data section's payload, sorted
// by offset, and reports whether they are all active segments of memory
// 0 at an i32.const offset, none overlapping another: those MergeData
// merges.
func activeSegments(payload []byte) ([]dataSegment, bool, error) {
	count, n, err := readU32(payload, 0)
	if err != nil {
		return nil, false, err
	}
	p := n
	segs := make([]dataSegment, 0, min(count, uint32(len(payload))))
	for range count {
		flags, n, err := readU32(payload, p)
		if err != nil {
			return nil, false, err
		}
		if flags != 0 || p+n >= len(payload) || payload[p+n] != 0x41 {
			return nil, false, nil // passive, another memory, another offset
		}
		p += n + 1
		offset, n, err := readS32(payload, p)
		if err != nil {
			return nil, false, err
		}
		p += n
		if p >= len(payload) || payload[p] != 0x0b {
			return nil, false, nil // an offset of more than one instruction
		}
		p++
		size, n, err := readU32(payload, p)
		if err != nil {
			return nil, false, err
		}
		p += n
		if uint64(p)+uint64(size) > uint64(len(payload)) {
			return nil, false, fmt.Errorf("%w: data segment %d runs past its section", ErrMalformed, len(segs))
		}
		segs = append(segs, dataSegment{offset: uint32(offset), init: payload[p : p+int(size)]})
		p += int(size)
	}
	if p != len(payload) {
		return nil, false, fmt.Errorf("%w: the data section has %d bytes after its segments", ErrMalformed, len(payload)-p)
	}
	slices.SortStableFunc(segs, func(a, b dataSegment) int { return cmp.Compare(a.offset, b.offset) })
	for i := 1; i < len(segs); i++ {
		if uint64(segs[i].offset) < uint64(segs[i-1].offset)+uint64(len(segs[i-1].init)) {
			return nil, false, nil // overlapping: the order of writes matters
		}
	}
	return segs, true, nil
}
