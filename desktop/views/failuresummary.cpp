#include "failuresummary.h"

#include "api/apiclient.h"
#include "core/requestcallback.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

FailureSummary::FailureSummary(ApiClient *client, const QString &jobUuid, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_uuid(jobUuid)
{
    setObjectName(u"failureSummary"_s);
    m_headline = new QLabel(this);
    m_headline->setObjectName(u"failureHeadline"_s);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_advice = new QLabel(this);
    m_advice->setObjectName(u"failureAdvice"_s);
    m_advice->setWordWrap(true);
    m_errors = new QPlainTextEdit(this);
    m_errors->setObjectName(u"failureErrors"_s);
    m_errors->setReadOnly(true);
    m_errors->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_errors->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_errors->setMaximumHeight(m_errors->fontMetrics().height() * (TailLines / 2 + 2));
    m_errors->hide();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_headline);
    layout->addWidget(m_advice);
    layout->addWidget(m_errors);
    hide();
}

QString FailureSummary::headline() const
{
    return m_headline->text();
}

QString FailureSummary::advice() const
{
    return m_advice->text();
}

QString FailureSummary::errorLines() const
{
    return m_errors->toPlainText();
}

QString FailureSummary::adviceFor(int exitCode)
{
    switch (exitCode) {
    case 127:
        return tr("Exit code 127: the command was not found. Check the command's spelling and "
                  "that the image (or the worker's Python) has the program.");
    case 126:
        return tr("Exit code 126: the command is not executable. Check its file mode, or run "
                  "it through its interpreter (python3 script.py).");
    case 137:
        return tr("Exit code 137: the task was killed (SIGKILL), most often for using more "
                  "memory than it asked for. Ask for more memory (memoryMB), or use less.");
    case 143:
        return tr("Exit code 143: the task was terminated (SIGTERM): stopped, or over its time.");
    case 0:
        return {};
    default:
        return tr("The task's last error lines are below; the whole log is in Logs (Stream: "
                  "stderr).");
    }
}

void FailureSummary::setJob(const JobMessage &job)
{
    if (job.state != JobState::Failed) {
        hide();
        return;
    }
    // The first task that failed in the last attempt: it is what ended the job.
    const auto failed = std::find_if(job.tasks.cbegin(), job.tasks.cend(),
                                     [](const TaskMessage &task) {
                                         return task.state == JobState::Failed;
                                     });
    const QString attempt = tr("attempt %1 of %2").arg(job.attempt).arg(job.retryCount + 1);
    if (failed == job.tasks.cend()) {
        m_headline->setText(tr("<b>The job failed</b> (%1). %2")
                                .arg(attempt, job.reason.toHtmlEscaped()));
        m_advice->clear();
        show();
        return;
    }
    const QString task = tr("%1 #%2").arg(failed->role).arg(failed->roleIndex);
    const bool hasCode = failed->exitCode.has_value();
    const int exitCode = failed->exitCode.value_or(0);
    const QString &worker = failed->worker;
    m_headline->setText(
        (hasCode ? tr("<b>Task %1 failed with exit code %2</b> on worker %3 (%4).")
                       .arg(task.toHtmlEscaped())
                       .arg(exitCode)
                       .arg(worker.toHtmlEscaped(), attempt)
                 : tr("<b>Task %1 failed</b> on worker %2 (%3).")
                       .arg(task.toHtmlEscaped(), worker.toHtmlEscaped(), attempt)));
    m_advice->setText(hasCode ? adviceFor(exitCode) : QString());
    show();
    loadErrorLines(failed->id);
}

void FailureSummary::loadErrorLines(qint64 taskId)
{
    if (!m_client || taskId == m_taskShown)
        return;
    m_taskShown = taskId;
    LogRead read;
    read.taskId = taskId;
    read.stream = LogStream::Stderr;
    read.tail = TailBytes;
    whenFinished(m_client->readLog(m_uuid, read), this,
                 [this](const Result<ApiResponse> &result) {
                     if (!result)
                         return; // the summary stands without them; Logs has the whole log
                     const LogPage page = LogApi::parsePage(*result);
                     QStringList lines = QString::fromUtf8(page.bytes).split(u'\n');
                     while (!lines.isEmpty() && lines.last().trimmed().isEmpty())
                         lines.removeLast();
                     // The first line of a tail may be cut; only whole lines are shown.
                     if (page.offset > 0 && !lines.isEmpty())
                         lines.removeFirst();
                     lines = lines.mid(std::max<qsizetype>(0, lines.size() - TailLines));
                     m_errors->setPlainText(lines.join(u'\n'));
                     m_errors->setVisible(!lines.isEmpty());
                 });
}

} // namespace ddl::desktop
