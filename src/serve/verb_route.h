// The HTTP door of the verb registry: every verb the registry offers over HTTP (Verb::doors has
// kHttp; verbs that launch programs or need a GPU do not) is served at
//   /api/v1/<its CLI words joined by '/'>        (/api/v1/triage, /api/v1/kb/query, /api/v1/store/ls)
// GET takes the request's fields as query parameters (lists comma-separated, booleans true/false),
// POST a JSON object of them; both answer the {ok, result, error} envelope `goblin <verb> --json`
// prints, with an HTTP status from the error kind. It is a loop over the registry plus
// app::call, like the other doors: no verb is named here.
//
// What HTTP adds: input paths must lie under one of `goblin serve --root` (none given: the server
// reads no files), outputs go to a folder the server makes for the request and removes after it
// (a caller never names a server path to write), verbs that change the store
// (Verb::writes_store) need POST and the --token, and nothing is recorded in a store as a side
// effect of a read.
#pragma once
#include <string>
#include <vector>

#include "serve/api.h"

namespace goblin::serve {

inline constexpr const char* kVerbRoutePrefix = "/api/v1/";

// `authorised`: the request carried the server's token.
ApiResponse verb_route(const ApiOptions& o, store::StorePool& pool, const ApiRequest& rq, bool authorised);

}  // namespace goblin::serve
