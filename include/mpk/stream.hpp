// mpk/stream.hpp - MessagePack over pipes, sockets and files: messages that arrive in pieces,
// and many messages written one after another.
//
// The parts (see docs/stream.md):
//   stream/decoder.hpp  stream_decoder: feed chunks of any size, take complete messages (raw,
//                       as a document, or typed); element-wise reading of one huge container
//   stream/io.hpp       stream_source (fd, FILE*), read_messages / read_values loops
//   stream/writer.hpp   stream_writer: many messages to an fd, FILE*, std::ostream or callback
#pragma once

#include "mpk/stream/decoder.hpp"
#include "mpk/stream/io.hpp"
#include "mpk/stream/writer.hpp"
