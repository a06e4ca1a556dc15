"""FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3): the digest every
harness and bench/support/digest.hpp use to compare encodings."""


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h
