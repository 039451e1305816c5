#pragma once

#include "api/logapi.h"
#include "core/result.h"
#include "wire/jobmessage.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonObject>
#include <QStringList>

#include <functional>

namespace ddl::cli {

class CliContext;

// The job reads that several commands share.
class JobApi
{
    Q_DECLARE_TR_FUNCTIONS(JobApi)
public:
    static constexpr qint64 LogPageSize = 1024 * 1024;

    // The job with its tasks, as the server wrote it (for --output json) and as read.
    static Result<QJsonObject> job(CliContext &context, const QString &uuid);
    static Result<JobMessage> jobMessage(CliContext &context, const QString &uuid);
    // One page of a task's log (the merged one, or one stream of it) from offset.
    static Result<LogPage> logChunk(CliContext &context,
                                    const QString &uuid,
                                    qint64 taskId,
                                    qint64 offset,
                                    qint64 limit = LogPageSize,
                                    LogStream stream = LogStream::All);
    // Streams a task's log from offset while the server sends it (?follow=1: until the task
    // ends or for up to 20 s); returns the offset reached.
    static Result<qint64> followLog(CliContext &context, const QString &uuid, qint64 taskId,
                                    qint64 offset,
                                    const std::function<void(const QByteArray &)> &onBytes,
                                    LogStream stream = LogStream::All);
    // The last count lines of a task's log, read with the API's tail so only its end travels.
    static Result<QStringList>
    logTail(CliContext &context, const QString &uuid, qint64 taskId, int count);
};

} // namespace ddl::cli
