#include "crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DDL_CRC32C_SSE42 1
#include <nmmintrin.h>
#endif

namespace ddl {

static const std::array<uint32_t, 256> &table()
{
    static const std::array<uint32_t, 256> entries = [] {
        std::array<uint32_t, 256> result{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t crc = i;
            for (int bit = 0; bit < 8; ++bit)
                crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
            result[i] = crc;
        }
        return result;
    }();
    return entries;
}

static uint32_t addPortable(uint32_t crc, const unsigned char *data, size_t size)
{
    const std::array<uint32_t, 256> &entries = table();
    for (size_t i = 0; i < size; ++i)
        crc = entries[(crc ^ data[i]) & 0xffu] ^ (crc >> 8);
    return crc;
}

#ifdef DDL_CRC32C_SSE42
__attribute__((target("sse4.2"))) static uint32_t addSse42(uint32_t crc, const unsigned char *data,
                                                           size_t size)
{
    uint64_t wide = crc;
    while (size >= 8) {
        uint64_t word;
        std::memcpy(&word, data, 8);
        wide = _mm_crc32_u64(wide, word);
        data += 8;
        size -= 8;
    }
    crc = uint32_t(wide);
    while (size-- > 0)
        crc = _mm_crc32_u8(crc, *data++);
    return crc;
}
#endif

void Crc32c::add(QByteArrayView bytes)
{
    const auto *data = reinterpret_cast<const unsigned char *>(bytes.data());
#ifdef DDL_CRC32C_SSE42
    static const bool hasSse42 = __builtin_cpu_supports("sse4.2");
    if (hasSse42) {
        m_state = addSse42(m_state, data, size_t(bytes.size()));
        return;
    }
#endif
    m_state = addPortable(m_state, data, size_t(bytes.size()));
}

} // namespace ddl
