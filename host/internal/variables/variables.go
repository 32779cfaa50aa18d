// Package variables resolves the variables an app declares in
// endpoints.json ("variables", config.Variable) to their values: from the
// host's environment, a file or a default, once when the app loads and at
// each reload. The host hands the values to guests through variable_get
// (abi/README.md §3).
//
// # Notes
//
//   - A secret's value is kept in a [Values] and handed to guests, never
//     written anywhere by this package: its errors name variables, sources
//     and sizes, never a value, and a Values prints (fmt, slog) only its
//     names.
package variables

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/appfile"
)

// Source is where variables are looked up.
type Source struct {
	// LookupEnv reads an environment variable of the host process.
	// Defaults to os.LookupEnv.
	LookupEnv func(key string) (string, bool)
	// Dir is the app directory, against which a relative file path is
	// read.
	Dir string
	// File names the configuration file in errors: "endpoints.json".
	// Defaults to config.File.
	File string
}

// Values are the resolved variables of an app: immutable once made, so
// any number of goroutines may read them. The zero Values (and a nil
// *Values) holds none.
type Values struct {
	m map[string]value
}

// value is one resolved variable.
type value struct {
	v      []byte
	secret bool
}

// Format prints no value, even where fmt reaches a Values' fields (a
// Values printed by value rather than through its pointer).
func (value) Format(f fmt.State, _ rune) { io.WriteString(f, "[value]") }

// Resolve looks up the value of each variable of decls in src. A
// variable without a value that is not optional, a file that cannot be
// read, a value over abi.VariableMaxValue or not UTF-8 is an error
// naming the variable and where it was looked for; Resolve reports every
// such variable at once, in name order.
func Resolve(decls map[string]config.Variable, src Source) (*Values, error) {
	if src.LookupEnv == nil {
		src.LookupEnv = os.LookupEnv
	}
	if src.File == "" {
		src.File = config.File
	}
	vs := &Values{m: make(map[string]value, len(decls))}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(decls)) {
		d := decls[name]
		v, err := resolve(d, src)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: /variables/%s: %w", src.File, name, err))
			continue
		}
		vs.m[name] = value{v: v, secret: d.Secret}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return vs, nil
}

// resolve is the value of one variable: from its environment variable,
// else its file, else its default.
func resolve(d config.Variable, src Source) ([]byte, error) {
	var looked []string
	if d.Env != "" {
		if v, ok := src.LookupEnv(d.Env); ok && v != "" {
			return checkValue([]byte(v), "environment variable "+d.Env)
		}
		looked = append(looked, "environment variable "+d.Env+" is unset or empty")
	}
	if d.File != "" {
		path := d.File
		if !filepath.IsAbs(path) {
			path = filepath.Join(src.Dir, filepath.FromSlash(path))
		}
		v, err := readFile(path)
		switch {
		case err == nil:
			return checkValue(v, "file "+path)
		case errors.Is(err, fs.ErrNotExist):
			looked = append(looked, "file "+path+" does not exist")
		default:
			return nil, err
		}
	}
	switch {
	case d.Default != nil:
		return []byte(*d.Default), nil
	case d.Optional:
		return []byte{}, nil
	}
	return nil, fmt.Errorf("has no value (%s) and no default; give it one, or mark it \"optional\": true", strings.Join(looked, ", "))
}

// readFile reads a variable's file, a regular one (appfile: a FIFO
// would hang the load, and the reload or shutdown waiting on it) of at
// most the limit and a line end, and drops one trailing newline.
func readFile(path string) ([]byte, error) {
	v, err := appfile.ReadWithin(path, path, abi.VariableMaxValue+2)
	switch {
	case errors.Is(err, appfile.ErrTooLarge):
		return nil, fmt.Errorf("the value of file %s is over the limit of %d bytes", path, abi.VariableMaxValue)
	case err != nil:
		return nil, err
	}
	return appfile.TrimLineEnd(v), nil
}

// checkValue checks a value found at where: its size and its encoding.
// The error never quotes the value.
func checkValue(v []byte, where string) ([]byte, error) {
	switch {
	case len(v) > abi.VariableMaxValue:
		return nil, fmt.Errorf("the value of %s is over the limit of %d bytes", where, abi.VariableMaxValue)
	case !utf8.Valid(v):
		return nil, fmt.Errorf("the value of %s is not UTF-8 text", where)
	}
	return v, nil
}

// Lookup returns the value of the variable name, which the caller must
// not change, and whether the app declares it.
func (vs *Values) Lookup(name string) ([]byte, bool) {
	if vs == nil {
		return nil, false
	}
	v, ok := vs.m[name]
	return v.v, ok
}

// Equal reports whether vs and other hold the same variables with the
// same values and secrecy.
func (vs *Values) Equal(other *Values) bool {
	a, b := vs.entries(), other.entries()
	if len(a) != len(b) {
		return false
	}
	for name, v := range a {
		w, ok := b[name]
		if !ok || v.secret != w.secret || !bytes.Equal(v.v, w.v) {
			return false
		}
	}
	return true
}

// entries is the map of vs, nil for a nil Values.
func (vs *Values) entries() map[string]value {
	if vs == nil {
		return nil
	}
	return vs.m
}

// Names are the variables' names, in order.
func (vs *Values) Names() []string {
	if vs == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(vs.m))
}

// String lists the variables' names, never their values: a Values printed
// by mistake shows no secret.
func (vs *Values) String() string {
	return fmt.Sprintf("variables %v", vs.Names())
}

// GoString is String, for %#v.
func (vs *Values) GoString() string { return vs.String() }

// LogValue is String, for log/slog.
func (vs *Values) LogValue() slog.Value { return slog.StringValue(vs.String()) }
