#pragma once

#include "wire/jobmessage.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

// What a failed job's page says first: which task failed, with what exit code, on which worker,
// in which attempt of how many; what to try for that exit code; and the task's last stderr
// lines (read once from the server). Hidden unless the job failed.
class FailureSummary : public QWidget
{
    Q_OBJECT
public:
    // The stderr bytes shown: the end of the log, where the error usually is.
    static constexpr qint64 TailBytes = 4096;
    static constexpr int TailLines = 12;

    FailureSummary(ApiClient *client, const QString &jobUuid, QWidget *parent = nullptr);

    void setJob(const JobMessage &job);
    QString headline() const;
    QString advice() const;
    QString errorLines() const;

    // What to try for a task that ended with exitCode (empty when there is nothing to add).
    static QString adviceFor(int exitCode);

private:
    void loadErrorLines(qint64 taskId);

    QPointer<ApiClient> m_client;
    QString m_uuid;
    qint64 m_taskShown = -1;
    QLabel *m_headline;
    QLabel *m_advice;
    QPlainTextEdit *m_errors;
};

} // namespace ddl::desktop
