// mpk/mpk.hpp - the whole library.
//
// Layers, each depending only on those above it (writer and reader know nothing of the tree
// or of your types):
//   format.hpp         wire-format constants, mpk::type, the first-byte table
//   error.hpp          errc, error (code + byte offset), result<T>
//   buffer.hpp         buffer, span_sink, stream_sink
//   bytes.hpp          byte_input: the byte ranges every reading entry point takes
//   unicode.hpp        UTF-8 validation, UTF-16 <-> UTF-8 transcoding
//   writer.hpp         writer<Sink>: values and container headers to a sink
//   reader.hpp         reader: values from bytes, skip, field_size, read_options
//   visit.hpp          visit: a push walk of one value, an event per scalar and container
//   ext/timestamp.hpp  the timestamp extension (-1) and std::chrono conversions
//   value.hpp          document + element (arena DOM), value (owning tree)
//   codec.hpp          pack / unpack of your types: MPK_MAP, MPK_ARRAY, codec<T>
//   ext/records.hpp    msgpackr's record extension (ext 0x72), dynamic and typed
//   stream.hpp         stream_decoder (messages in pieces), stream_writer, fd / FILE* loops
//   json.hpp           MessagePack <-> JSON, plain and lossless
#pragma once

// clang-format off: the includes follow the layer order above.
#include "format.hpp"
#include "error.hpp"
#include "buffer.hpp"
#include "bytes.hpp"
#include "unicode.hpp"
#include "writer.hpp"
#include "reader.hpp"
#include "visit.hpp"
#include "ext/timestamp.hpp"
#include "value.hpp"
#include "codec.hpp"
#include "ext/records.hpp"
#include "stream.hpp"
#include "json.hpp"
// clang-format on
