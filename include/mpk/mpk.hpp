// mpk/mpk.hpp - the whole library.
//
// Layers, each depending only on those above it:
//   format.hpp   wire-format constants, mpk::type, the first-byte table
//   error.hpp    errc, error (code + byte offset), result<T>
//   buffer.hpp   buffer, span_sink, stream_sink
//   writer.hpp   writer<Sink>: values and container headers to a sink
//   reader.hpp   reader: values from bytes, skip, field_size, limits
#pragma once

// clang-format off: the includes follow the layer order above.
#include "format.hpp"
#include "error.hpp"
#include "buffer.hpp"
#include "writer.hpp"
#include "reader.hpp"
// clang-format on
