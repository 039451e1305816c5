#pragma once

#include "api/logapi.h"
#include "core/result.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <memory>

namespace ddl::server {

// A search of one log file for a plain substring: forward from `from` (matches that start at
// or after it) or backward (matches that start before it, nearest first). Reads the file in
// blocks that overlap by the text's length less one, so a match across a block boundary is
// found and memory stays at one block whatever the log's size; stops after MaxMatches matches
// or MaxScanBytes bytes, and says where the next search continues. Runs on a pool thread: it
// touches nothing but the file.
struct LogSearchSpec
{
    static constexpr int MaxTextBytes = 256;
    static constexpr int MaxMatches = 100;
    static constexpr qint64 MaxScanBytes = 64 * 1024 * 1024;
    static constexpr qint64 BlockBytes = 1024 * 1024;
    // How far back from a match its line start is looked for.
    static constexpr qint64 MaxLineLookBack = 1024 * 1024;

    QString path;
    QByteArray text;      // UTF-8, 1..MaxTextBytes bytes
    qint64 from = -1;     // -1: the start (forward) or the end (backward)
    bool backward = false;
    bool ignoreCase = false; // ASCII letters only; other bytes must match exactly
    int maxMatches = MaxMatches;
    qint64 maxScanBytes = MaxScanBytes;
    qint64 blockBytes = BlockBytes;
    // Set when the asker is gone: the scan stops at the next block.
    std::shared_ptr<std::atomic_bool> cancelled;
};

Result<LogSearchAnswer> searchLog(const LogSearchSpec &spec);

} // namespace ddl::server
