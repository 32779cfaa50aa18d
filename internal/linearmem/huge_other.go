//go:build unix && !linux

package linearmem

// adviseHugePages does nothing: only Linux has transparent huge pages on
// request.
func adviseHugePages([]byte) {}
