// mpk/value.hpp - dynamic values: `document` (a whole message parsed into an arena of small
// nodes, navigated with `element`) and `value` (an owning tree to build and edit).
//
//     auto doc = mpk::document::parse(bytes);             // zero-copy, one arena
//     auto name = doc->root()["name"].as<std::string_view>();
//
//     mpk::value v = {{"name", "mpk"}, {"tags", {1, 2, 3}}};
//     mpk::write(w, v);
//
// See docs/value.md.
#pragma once

#include "mpk/value/document.hpp"
#include "mpk/value/owned.hpp"
