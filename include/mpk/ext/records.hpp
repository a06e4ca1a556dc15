// mpk/ext/records.hpp - msgpackr's record extension (ext 0x72): read and write records in
// msgpackr's three modes (per message, sequential, shared structures), as documents, owning
// values or your own structs.
//
//     mpk::records_decoder dec;                                  // msgpackr's `new Packr()`
//     auto doc = dec.parse(bytes);                               // result<mpk::document>
//     auto beers = mpk::unpack_records<std::vector<beer>>(dec, bytes);
//     mpk::records_encoder enc;
//     auto out = mpk::pack_records(enc, *beers);                 // msgpackr's unpack reads it
//
// See docs/records.md.
#pragma once

#include "mpk/ext/records/core.hpp"
#include "mpk/ext/records/typed.hpp"
