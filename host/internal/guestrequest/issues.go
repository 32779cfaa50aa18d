package guestrequest

import (
	"net/http"

	"github.com/wasmendpoints/endpoints/abi"
)

// Issues are what steps 6 and 7 found wrong with the request's parts,
// each part's issues in the order the pipeline checks them; nil for a
// part without.
type Issues struct {
	Params, Query, Headers, Body []abi.Issue
}

// Empty reports whether no part has issues.
func (s *Issues) Empty() bool {
	return s.Params == nil && s.Query == nil && s.Headers == nil && s.Body == nil
}

// Failure describes the 400 the issues make, as an onValidationError hook
// receives it: each failing part's issues, Part the first of them.
func (s *Issues) Failure() *abi.ValidationFailure {
	f := &abi.ValidationFailure{Kind: abi.FailureSchema, Status: http.StatusBadRequest, Issues: map[string][]abi.Issue{}}
	for _, p := range []struct {
		part   abi.Part
		issues []abi.Issue
	}{{abi.PartParams, s.Params}, {abi.PartQuery, s.Query}, {abi.PartHeaders, s.Headers}, {abi.PartBody, s.Body}} {
		if p.issues == nil {
			continue
		}
		f.Issues[p.part.String()] = p.issues
		if f.Part == "" {
			f.Part = p.part.String()
		}
	}
	return f
}

// FailedParts are the parts a failure concerns, in pipeline order: those
// with issues of a 400, the one part of another refusal (406, 415).
func FailedParts(f *abi.ValidationFailure) []string {
	if f.Kind != abi.FailureSchema {
		return []string{f.Part}
	}
	var parts []string
	for _, p := range []abi.Part{abi.PartParams, abi.PartQuery, abi.PartHeaders, abi.PartBody} {
		if f.Issues[p.String()] != nil {
			parts = append(parts, p.String())
		}
	}
	return parts
}
