// The AssemblyScript SDK for Endpoints route modules (ABI v1). See
// README.md for a complete route.

export { Value as JSONValue, Kind as JSONKind, parse as parseJSON } from "./json";
export { decode, JSONFields } from "./decode";
export { Schema, Contract } from "./contract";
export { Request, Part } from "./request";
export { setStatus, setHeader, addHeader, write, writeBytes, respond, respondText } from "./response";
export { endpoint, plainRoute, Handler } from "./route";
export { endpointsAbort } from "./abort";
export { variable } from "./variable";
export { DB, DBError, Row, Rows, ExecResult, TxOptions, Isolation, blob, base64Encode, base64Decode, statementTimeout } from "./db";
import * as kv from "./kv";
import * as log from "./log";
import * as http from "./http";
export { kv, log, http };
