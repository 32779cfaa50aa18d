package config

import (
	"maps"
	"regexp"
	"slices"

	"github.com/wasmendpoints/endpoints/abi"
)

// Variable is one entry of endpoints.json's "variables": a value the
// app's guests read with the variable_get host function (abi/README.md
// §3), taken from the host's environment, a file or a default, and
// resolved when the app loads and at each reload.
//
//	"variables": {
//	  "webhookUrl":    {"env": "ORDERS_WEBHOOK_URL", "optional": true},
//	  "webhookSecret": {"env": "ORDERS_WEBHOOK_SECRET", "secret": true, "optional": true},
//	  "region":        {"default": "eu"},
//	  "dbPassword":    {"file": "/run/secrets/db_password", "secret": true}
//	}
//
// The value is the first of: the environment variable Env when it is set
// and not empty, the content of File when the file exists, Default. A
// variable with none of them fails the load, naming it and where it was
// looked for, unless it is Optional: an optional variable without a value
// reads as the empty string.
//
// # Notes
//
//   - A Secret variable's value never appears in what the host writes: its
//     logs, traces, metrics, error answers, the OpenAPI document, `endpoints
//     routes` or `endpoints config`. What a guest does with it (log it,
//     answer it) is the guest's doing.
//   - A secret cannot have a Default: a secret written in endpoints.json is
//     no secret. Give it through Env or File.
//   - One trailing newline ("\n" or "\r\n") of a file is dropped, as
//     `echo value > file` and most secret stores write one.
//   - Values are UTF-8 text of at most [abi.VariableMaxValue] bytes.
type Variable struct {
	// Env is the environment variable of the host process that holds the
	// value: "ORDERS_WEBHOOK_URL". Set but empty counts as unset.
	Env string `json:"env,omitzero"`
	// File is a file whose content is the value, as Docker and Kubernetes
	// mount secrets: "/run/secrets/x". A relative path is relative to the
	// app directory. A missing file counts as no value; one that cannot be
	// read fails the load.
	File string `json:"file,omitzero"`
	// Default is the value when neither Env nor File gives one. Not
	// allowed on a Secret.
	Default *string `json:"default,omitzero"`
	// Secret keeps the value out of everything the host writes (see the
	// type's notes).
	Secret bool `json:"secret,omitzero"`
	// Optional lets the variable have no value (it then reads as ""),
	// rather than failing the load. Meaningless with a Default.
	Optional bool `json:"optional,omitzero"`
}

// variableName is what a variable's name may be: a letter, then letters,
// digits, "_", "-" or ".", at most 128 bytes.
var variableName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,127}$`)

// envName is what Env may be: a portable environment variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkVariables checks the declarations of "variables", in name order.
func checkVariables(file string, vars map[string]Variable) error {
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		v, ptr := vars[name], "/variables/"+name
		switch {
		case !variableName.MatchString(name):
			return badSetting(file, ptr, "a variable's name must start with a letter and hold only letters, digits, \"_\", \"-\" and \".\" (at most 128 bytes)")
		case v.Env != "" && !envName.MatchString(v.Env):
			return badSetting(file, ptr+"/env", "%q is not an environment variable name (letters, digits and \"_\", not starting with a digit)", v.Env)
		case v.Env == "" && v.File == "" && v.Default == nil:
			return badSetting(file, ptr, "says where its value comes from with none of \"env\", \"file\" or \"default\"; give at least one")
		case v.Secret && v.Default != nil:
			return badSetting(file, ptr+"/default", "a secret cannot have a default: a value written in %s is no secret; give it through \"env\" or \"file\"", file)
		case v.Optional && v.Default != nil:
			return badSetting(file, ptr+"/optional", "a variable with a default always has a value; drop \"optional\" or the default")
		case v.Default != nil && len(*v.Default) > abi.VariableMaxValue:
			return badSetting(file, ptr+"/default", "is %d bytes, over the limit of %d", len(*v.Default), abi.VariableMaxValue)
		}
	}
	return nil
}
