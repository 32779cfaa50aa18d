package main

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strconv"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/wasmbin"
)

// sealed is what an earlier build left of a module: the hash of its code
// (the file without the sections embedContract writes) and those
// sections' payloads.
type sealed struct {
	code     [32]byte
	contract []byte // nil for a module without a contract (a plain route)
}

// sealedModules reads, for each of sources, the module file an earlier
// build sealed with the sections of this ABI version; a module without
// them, or unreadable, is left out (it is embedded as usual).
func sealedModules(app string, sources []guestbuild.Source) map[string]sealed {
	out := map[string]sealed{}
	for _, s := range sources {
		wasm, err := os.ReadFile(filepath.Join(app, filepath.FromSlash(s.Module)))
		if err != nil {
			continue
		}
		version, ok, err := wasmbin.Custom(wasm, abi.SectionABIVersion)
		if err != nil || !ok || string(version) != strconv.Itoa(abi.Version) {
			continue
		}
		contract, _, err := wasmbin.Custom(wasm, abi.SectionContract)
		if err != nil {
			continue
		}
		code, err := wasmbin.WithoutCustom(wasm, abi.SectionABIVersion, abi.SectionContract)
		if err != nil {
			continue
		}
		out[s.Module] = sealed{code: sha256.Sum256(code), contract: bytes.Clone(contract)}
	}
	return out
}

// reseal writes the sections of prev back into the module file module of
// app when the build just wrote the very code prev was sealed from, as
// embedContract would write them, and reports whether it did: loading
// the module again (seconds for a Go bundle of a hundred routes, run in
// the interpreter) would find the same contract. The app is still
// checked as serve loads it after the build.
func reseal(app, module string, prev sealed) (bool, error) {
	path := filepath.Join(app, filepath.FromSlash(module))
	wasm, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	if _, ok, err := wasmbin.Custom(wasm, abi.SectionABIVersion); err != nil || ok || sha256.Sum256(wasm) != prev.code {
		return false, nil
	}
	out, err := wasmbin.WithCustom(wasm, abi.SectionABIVersion, []byte(strconv.Itoa(abi.Version)))
	if err != nil {
		return false, err
	}
	if prev.contract != nil {
		if out, err = wasmbin.WithCustom(out, abi.SectionContract, prev.contract); err != nil {
			return false, err
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return false, err
	}
	return true, os.Rename(tmp, path)
}
