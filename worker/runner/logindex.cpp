#include "logindex.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ddl::worker {

LogIndex::LogIndex(const QString &path)
    : m_file(path)
{}

Status LogIndex::open()
{
    // Unbuffered: records are read back while later ones are written.
    if (!m_file.open(QIODevice::ReadWrite | QIODevice::Truncate | QIODevice::Unbuffered)) {
        return Error::make(ErrorCode::IoError,
                           u"cannot open the task log index %1: %2"_s.arg(m_file.fileName(),
                                                                          m_file.errorString()));
    }
    m_count = 0;
    m_size = 0;
    m_last = {};
    return Ok{};
}

void LogIndex::append(LogSource source, qint64 length)
{
    if (length <= 0 || !m_file.isOpen())
        return;
    if (m_count == 0 || m_last.source != qint64(source)) {
        Record next;
        next.merged = m_size;
        next.source = qint64(source);
        if (m_count > 0) {
            const qint64 runLength = m_size - m_last.merged;
            next.stdoutOffset = m_last.stdoutOffset
                                + (m_last.source == qint64(LogSource::Stdout) ? runLength : 0);
            next.stderrOffset = m_last.stderrOffset
                                + (m_last.source == qint64(LogSource::Stderr) ? runLength : 0);
        }
        m_file.seek(m_count * qint64(sizeof(Record)));
        m_file.write(reinterpret_cast<const char *>(&next), sizeof(Record));
        m_last = next;
        ++m_count;
    }
    m_size += length;
}

LogIndex::Record LogIndex::record(qint64 index) const
{
    if (index == m_count - 1)
        return m_last;
    Record read;
    if (!m_file.seek(index * qint64(sizeof(Record)))
        || m_file.read(reinterpret_cast<char *>(&read), sizeof(Record)) != qint64(sizeof(Record))) {
        return m_last; // cannot happen short of a vanished file; the newest record is safe
    }
    return read;
}

qint64 LogIndex::recordEnd(qint64 index) const
{
    return index + 1 < m_count ? record(index + 1).merged : m_size;
}

qint64 LogIndex::recordAt(qint64 merged) const
{
    qint64 low = 0;
    qint64 high = m_count - 1;
    while (low < high) {
        const qint64 middle = (low + high + 1) / 2;
        if (record(middle).merged <= merged)
            low = middle;
        else
            high = middle - 1;
    }
    return low;
}

LogIndex::Position LogIndex::positionAt(qint64 merged) const
{
    Position position;
    position.merged = std::clamp<qint64>(merged, 0, m_size);
    if (m_count == 0)
        return position;
    const Record found = record(recordAt(position.merged));
    const qint64 into = position.merged - found.merged;
    position.stdoutOffset = found.stdoutOffset
                            + (found.source == qint64(LogSource::Stdout) ? into : 0);
    position.stderrOffset = found.stderrOffset
                            + (found.source == qint64(LogSource::Stderr) ? into : 0);
    return position;
}

QList<LogRun> LogIndex::runs(qint64 from, qint64 maxBytes, int maxRuns) const
{
    QList<LogRun> runs;
    if (m_count == 0 || from >= m_size)
        return runs;
    const qint64 end = std::min(m_size, from + maxBytes);
    qint64 at = from;
    for (qint64 index = recordAt(from); at < end && index < m_count && runs.size() < maxRuns;
         ++index) {
        const qint64 runEnd = std::min(end, recordEnd(index));
        if (runEnd <= at)
            continue;
        runs.append({LogSource(record(index).source), runEnd - at});
        at = runEnd;
    }
    return runs;
}

qint64 LogIndex::rewindPoint(qint64 merged, qint64 stdoutOffset, qint64 stderrOffset) const
{
    merged = std::clamp<qint64>(merged, 0, m_size);
    if (m_count == 0)
        return merged;
    auto fits = [&](const Record &candidate) {
        return candidate.merged <= merged && candidate.stdoutOffset <= stdoutOffset
               && candidate.stderrOffset <= stderrOffset;
    };
    // Every offset grows along the records: the ones that fit come first.
    qint64 low = 0;
    qint64 high = m_count - 1;
    if (!fits(record(0)))
        return 0;
    while (low < high) {
        const qint64 middle = (low + high + 1) / 2;
        if (fits(record(middle)))
            low = middle;
        else
            high = middle - 1;
    }
    const Record found = record(low);
    qint64 reach = std::min(merged, recordEnd(low)) - found.merged;
    if (found.source == qint64(LogSource::Stdout))
        reach = std::min(reach, stdoutOffset - found.stdoutOffset);
    else if (found.source == qint64(LogSource::Stderr))
        reach = std::min(reach, stderrOffset - found.stderrOffset);
    return found.merged + std::max<qint64>(0, reach);
}

} // namespace ddl::worker
