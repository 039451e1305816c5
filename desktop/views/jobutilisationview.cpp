#include "jobutilisationview.h"

#include "api/apiclient.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "views/utilisationchartsview.h"
#include "wire/jobstate.h"

#include <QJsonArray>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

JobUtilisationView::JobUtilisationView(ApiClient *client, const QString &uuid, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_uuid(uuid)
    , m_charts(new UtilisationChartsView(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_charts);
    m_timer.setInterval(RefreshMs);
    connect(&m_timer, &QTimer::timeout, this, &JobUtilisationView::refresh);
}

void JobUtilisationView::setJobState(const QString &state)
{
    if (state == m_state)
        return;
    m_state = state;
    updateTimer();
    if (isVisible())
        refresh();
}

void JobUtilisationView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    updateTimer();
    refresh();
}

void JobUtilisationView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_timer.stop();
}

void JobUtilisationView::updateTimer()
{
    const Result<JobState> state = parseJobState(m_state);
    if (isVisible() && !(state && isFinal(*state)))
        m_timer.start();
    else
        m_timer.stop();
}

void JobUtilisationView::refresh()
{
    const Result<JobState> state = parseJobState(m_state);
    const bool final = state && isFinal(*state);
    if (!m_client || m_busy || (final && m_finalRead))
        return;
    m_busy = true;
    whenFinished(
        m_client->jobUtilisation(m_uuid), this, [this, final](const Result<ApiResponse> &result) {
            m_busy = false;
            if (!result) {
                m_charts->setStatus(
                    result.error().is(ErrorCode::NotFound)
                        ? tr("This server keeps no utilisation samples (it is older "
                             "than this client).")
                        : ErrorText::describe(result.error()));
                emit refreshed();
                return;
            }
            m_finalRead = final;
            m_charts->setStatus({});
            QList<UtilisationLine> lines;
            bool anyGpus = false;
            for (const QJsonValue &value : result->json().value("tasks"_L1).toArray()) {
                const TaskUtilisation task = TaskUtilisation::fromJson(value.toObject());
                anyGpus = anyGpus || !task.gpuIndices.isEmpty();
                lines.append({u"%1 #%2"_s.arg(task.role).arg(task.roleIndex), task.samples});
            }
            QString empty;
            if (m_state == stateName(JobState::Waiting))
                empty = tr("No samples yet: the job waits for a worker.");
            else if (final)
                empty = tr("No samples: the job's workers reported none while it ran.");
            else
                empty = tr("No samples yet: workers report CPU, memory and GPU use every few "
                           "seconds while tasks run.");
            const QString noGpu = anyGpus ? tr("The worker reports no GPU readings for these tasks "
                                               "(no nvidia-smi, or GPUs declared with --gpus).")
                                          : tr("The tasks of this job use no GPU.");
            m_charts->setLines(lines, empty, noGpu);
            emit refreshed();
            // The job ended while this was asked: its last samples are read once more.
            if (const Result<JobState> now = parseJobState(m_state);
                !final && now && isFinal(*now))
                refresh();
        });
}

} // namespace ddl::desktop
