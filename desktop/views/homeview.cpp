#include "homeview.h"

#include "api/apiclient.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "models/jobrecord.h"
#include "wire/jobstate.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

HomeView::HomeView(QWidget *parent)
    : QWidget(parent)
    , m_clusterTitle(new QLabel(this))
    , m_cluster(new QLabel(this))
    , m_jobsTitle(new QLabel(this))
    , m_waitingTitle(new QLabel(this))
    , m_waiting(new QTreeWidget(this))
{
    m_cluster->setObjectName(u"clusterSummary"_s);
    m_cluster->setWordWrap(true);
    m_waiting->setObjectName(u"waitingJobs"_s);
    m_waiting->setRootIsDecorated(false);
    m_waiting->setColumnCount(2);
    m_waiting->header()->setStretchLastSection(true);
    m_waiting->setColumnWidth(0, 220);
    auto *states = new QHBoxLayout;
    for (const QString &state : allStateNames()) {
        auto *button = new QPushButton(this);
        button->setObjectName(u"count"_s + state);
        button->setFlat(true);
        connect(button, &QPushButton::clicked, this, [this, state] { emit stateRequested(state); });
        m_stateButtons.insert(state, button);
        states->addWidget(button);
    }
    states->addStretch();
    auto *layout = new QVBoxLayout(this);
    for (QLabel *title : {m_clusterTitle, m_jobsTitle, m_waitingTitle})
        title->setTextFormat(Qt::RichText);
    layout->addWidget(m_clusterTitle);
    layout->addWidget(m_cluster);
    layout->addSpacing(12);
    layout->addWidget(m_jobsTitle);
    layout->addLayout(states);
    layout->addSpacing(12);
    layout->addWidget(m_waitingTitle);
    layout->addWidget(m_waiting, 1);
    connect(m_waiting, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        emit openRequested(item->data(0, Qt::UserRole).toString());
    });
    m_timer.setInterval(RefreshMs);
    connect(&m_timer, &QTimer::timeout, this, &HomeView::refresh);
    retranslateUi();
}

void HomeView::retranslateUi()
{
    m_clusterTitle->setText(u"<b>"_s + tr("Cluster") + u"</b>"_s);
    m_jobsTitle->setText(u"<b>"_s + tr("My jobs") + u"</b>"_s);
    m_waitingTitle->setText(u"<b>"_s + tr("Waiting, and why") + u"</b>"_s);
    m_waiting->setHeaderLabels({tr("Job"), tr("Why it waits")});
    if (m_cluster->text().isEmpty() || m_counts.isEmpty())
        m_cluster->setText(tr("Asking the server…"));
    showCounts();
}

void HomeView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}

void HomeView::setClient(ApiClient *client)
{
    m_client = client;
    if (isVisible())
        refresh();
}

void HomeView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
    m_timer.start();
}

void HomeView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_timer.stop();
}

QString HomeView::clusterText() const
{
    return m_cluster->text();
}

void HomeView::showCounts()
{
    for (auto it = m_stateButtons.cbegin(); it != m_stateButtons.cend(); ++it) {
        const int count = m_counts.value(it.key(), -1);
        it.value()->setText(JobStateStyle::displayName(it.key()) + u": "_s
                            + (count < 0 ? u"–"_s : QString::number(count)));
    }
}

void HomeView::answerArrived()
{
    if (--m_pending == 0)
        emit refreshed();
}

void HomeView::refresh()
{
    if (!m_client || m_pending > 0)
        return;
    const QStringList states = allStateNames();
    m_pending = 2 + int(states.size());
    whenFinished(m_client->workers(), this, [this](const Result<ApiResponse> &result) {
        if (!result) {
            m_cluster->setText(ErrorText::describe(result.error()));
        } else {
            int online = 0, all = 0, gpus = 0, used = 0;
            for (const QJsonValue &value : result->json().value("workers"_L1).toArray()) {
                const QJsonObject worker = value.toObject();
                ++all;
                if (worker.value("state"_L1).toString() != u"ONLINE"_s)
                    continue;
                ++online;
                gpus += worker.value("gpus"_L1).toInt();
                used += worker.value("gpus_in_use"_L1).toInt();
            }
            m_cluster->setText(tr("%1 of %n worker(s) online. GPUs: %2 in use, %3 free, of %4.",
                                  nullptr, all)
                                   .arg(online)
                                   .arg(used)
                                   .arg(gpus - used)
                                   .arg(gpus));
        }
        answerArrived();
    });
    // One count per state: a listing of one job carries the total.
    for (const QString &state : states) {
        JobListQuery query;
        query.limit = 1;
        query.states = {state};
        whenFinished(m_client->listJobs(query), this,
                     [this, state](const Result<ApiResponse> &result) {
                         if (result)
                             m_counts.insert(state, int(result->json().value("total"_L1).toInteger()));
                         showCounts();
                         answerArrived();
                     });
    }
    // The oldest waiting first: the front of the user's queue.
    JobListQuery waiting;
    waiting.limit = WaitingShown;
    waiting.states = {stateName(JobState::Waiting)};
    waiting.sort = u"submitted"_s;
    waiting.order = u"asc"_s;
    whenFinished(m_client->listJobs(waiting), this, [this](const Result<ApiResponse> &result) {
        if (result) {
            m_waiting->clear();
            for (const QJsonValue &value : result->json().value("jobs"_L1).toArray()) {
                const JobRecord job = JobRecord::fromJson(value.toObject());
                auto *item = new QTreeWidgetItem(m_waiting, {job.name, job.reason});
                item->setData(0, Qt::UserRole, job.uuid);
                item->setToolTip(1, job.reason);
            }
        }
        answerArrived();
    });
}

} // namespace ddl::desktop
