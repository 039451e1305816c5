#include "logsearch.h"

#include <QByteArrayMatcher>
#include <QFile>

using namespace Qt::StringLiterals;

namespace ddl::server {

static void foldAscii(QByteArray &bytes)
{
    for (char &c : bytes) {
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    }
}

// Where the line holding the byte at pos starts: just after the last newline before pos,
// looked for backward in 64 KiB pieces, at most lookBack bytes; pos - lookBack when none is
// that near (a very long line), 0 at the file's start.
static qint64 lineStartBefore(QFile &file, qint64 pos, qint64 lookBack)
{
    const qint64 lowest = std::max<qint64>(0, pos - lookBack);
    qint64 end = pos;
    while (end > lowest) {
        const qint64 start = std::max<qint64>(lowest, end - 64 * 1024);
        if (!file.seek(start))
            return lowest;
        const QByteArray piece = file.read(end - start);
        if (piece.size() != end - start)
            return lowest;
        const qsizetype newline = piece.lastIndexOf('\n');
        if (newline >= 0)
            return start + newline + 1;
        end = start;
    }
    return lowest;
}

namespace {
// One block of the file in memory, and the line start of its first byte once asked for.
class Block
{
public:
    Block(QFile &file, const LogSearchSpec &spec)
        : m_file(file)
        , m_spec(spec)
    {}

    bool load(qint64 start, qint64 end)
    {
        m_start = start;
        m_headLineStart = -1;
        if (!m_file.seek(start))
            return false;
        m_raw = m_file.read(end - start);
        if (m_raw.size() != end - start)
            return false;
        m_search = m_raw;
        if (m_spec.ignoreCase)
            foldAscii(m_search);
        return true;
    }
    const QByteArray &searchable() const { return m_search; }
    qint64 start() const { return m_start; }

    qint64 lineStartOf(qsizetype index)
    {
        const qsizetype newline = index > 0 ? m_raw.lastIndexOf('\n', index - 1) : -1;
        if (newline >= 0)
            return m_start + newline + 1;
        if (m_headLineStart < 0)
            m_headLineStart = lineStartBefore(m_file, m_start, LogSearchSpec::MaxLineLookBack);
        // Never further back than the look-back from the match itself (a very long line).
        return std::max(m_headLineStart, m_start + index - LogSearchSpec::MaxLineLookBack);
    }

private:
    QFile &m_file;
    const LogSearchSpec &m_spec;
    QByteArray m_raw;
    QByteArray m_search;
    qint64 m_start = 0;
    qint64 m_headLineStart = -1;
};
} // namespace

Result<LogSearchAnswer> searchLog(const LogSearchSpec &spec)
{
    LogSearchAnswer answer;
    QByteArray needle = spec.text;
    const qint64 n = needle.size();
    if (n == 0 || spec.blockBytes <= n)
        return Error::make(ErrorCode::BadRequest, u"the search text is empty"_s, u"q"_s);
    if (spec.ignoreCase)
        foldAscii(needle);
    QFile file(spec.path);
    if (!file.open(QIODevice::ReadOnly)) {
        // A task that has written nothing (to this stream) yet: an empty log.
        answer.done = true;
        return answer;
    }
    answer.size = file.size();
    const qint64 size = answer.size;
    Block block(file, spec);
    qint64 scanned = 0;
    auto stopped = [&spec] { return spec.cancelled && spec.cancelled->load(); };
    auto readError = [&file] {
        return Error::make(ErrorCode::IoError,
                           u"cannot read %1: %2"_s.arg(file.fileName(), file.errorString()));
    };

    if (!spec.backward) {
        const QByteArrayMatcher matcher(needle);
        qint64 pos = spec.from < 0 ? 0 : std::min(spec.from, size);
        // Matches start in [pos, size - n]; each block overlaps the next by n - 1 bytes.
        while (pos + n <= size && scanned < spec.maxScanBytes && !stopped()) {
            const qint64 end = std::min(size, pos + spec.blockBytes);
            if (!block.load(pos, end))
                return readError();
            scanned += end - pos;
            for (qsizetype index = matcher.indexIn(block.searchable(), 0); index >= 0;
                 index = matcher.indexIn(block.searchable(), index + 1)) {
                answer.matches.append({pos + index, block.lineStartOf(index)});
                if (answer.matches.size() >= spec.maxMatches) {
                    answer.scannedTo = pos + index + 1;
                    answer.done = answer.scannedTo + n > size;
                    return answer;
                }
            }
            pos = end >= size ? size : end - n + 1;
        }
        answer.done = pos + n > size;
        answer.scannedTo = answer.done ? size : pos;
        return answer;
    }

    // Backward: matches that start before `end`, the nearest first.
    qint64 end = spec.from < 0 ? size : std::min(spec.from, size);
    while (end > 0 && scanned < spec.maxScanBytes && !stopped()) {
        const qint64 blockEnd = std::min(size, end + n - 1);
        const qint64 blockStart = std::max<qint64>(0, blockEnd - spec.blockBytes);
        if (blockEnd - blockStart < n) {
            end = 0; // too little left for a match
            break;
        }
        if (!block.load(blockStart, blockEnd))
            return readError();
        scanned += blockEnd - blockStart;
        const QByteArray &data = block.searchable();
        // The last index at which a match may start that starts before `end`.
        qsizetype from = qsizetype(std::min(end - 1, blockEnd - n) - blockStart);
        for (qsizetype index = from >= 0 ? data.lastIndexOf(needle, from) : -1; index >= 0;
             index = index > 0 ? data.lastIndexOf(needle, index - 1) : -1) {
            answer.matches.append({blockStart + index, block.lineStartOf(index)});
            if (answer.matches.size() >= spec.maxMatches) {
                answer.scannedTo = blockStart + index;
                answer.done = answer.scannedTo == 0;
                return answer;
            }
        }
        end = blockStart;
    }
    answer.done = end == 0;
    answer.scannedTo = end;
    return answer;
}

} // namespace ddl::server
