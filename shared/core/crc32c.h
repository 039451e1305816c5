#pragma once

#include <QByteArrayView>

#include <cstdint>

namespace ddl {

// CRC-32C (Castagnoli), the per-chunk check of uploads: cheap enough (SSE4.2 where the CPU has
// it) to run on every byte beside SHA-256 without slowing the stream.
class Crc32c
{
public:
    void add(QByteArrayView bytes);
    uint32_t value() const { return ~m_state; }

private:
    uint32_t m_state = 0xffffffffu;
};

} // namespace ddl
