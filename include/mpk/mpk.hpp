// mpk/mpk.hpp - the whole library.
//
// Layers, each depending only on those above it:
//   format.hpp   wire-format constants, mpk::type, the first-byte table
//   error.hpp    errc, error (code + byte offset), result<T>
//   buffer.hpp   buffer, span_sink, stream_sink
//   writer.hpp   writer<Sink>: values and container headers to a sink
//   reader.hpp   reader: values from bytes, skip, field_size, limits
#pragma once

#include "buffer.hpp"
#include "error.hpp"
#include "format.hpp"
#include "writer.hpp"
