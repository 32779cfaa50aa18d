// GET /health - a plain route: no contract, so the host neither validates
// its requests nor lists it in the OpenAPI document.
import { Request, plainRoute, respondText } from "@wasmendpoints/assemblyscript";
export * from "@wasmendpoints/assemblyscript/exports";

plainRoute((req: Request): void => {
  respondText(200, "ok");
});
