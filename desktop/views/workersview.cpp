#include "workersview.h"

#include "api/apiclient.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "models/workermodel.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

WorkersView::WorkersView(QWidget *parent)
    : QWidget(parent)
    , m_model(new WorkerModel(this))
    , m_table(new QTableView(this))
    , m_status(new QLabel(this))
{
    m_table->setObjectName(u"workerTable"_s);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_status);
    m_timer.setInterval(RefreshMs);
    connect(&m_timer, &QTimer::timeout, this, &WorkersView::refresh);
}

void WorkersView::setClient(ApiClient *client)
{
    m_client = client;
    if (isVisible())
        refresh();
}

void WorkersView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
    m_timer.start();
}

void WorkersView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_timer.stop();
}

void WorkersView::refresh()
{
    if (!m_client || m_busy)
        return;
    m_busy = true;
    whenFinished(m_client->workers(), this, [this](const Result<ApiResponse> &result) {
        m_busy = false;
        if (!result) {
            m_status->setText(result.error().is(ErrorCode::NotFound)
                                  ? tr("This server does not list its workers (it is older than "
                                       "this client).")
                                  : ErrorText::describe(result.error()));
            return;
        }
        const QJsonArray workers = result->json().value("workers"_L1).toArray();
        m_model->setWorkers(workers);
        int gpus = 0;
        int online = 0;
        for (const QJsonValue &worker : workers) {
            if (worker.toObject().value("state"_L1).toString() == u"ONLINE"_s) {
                ++online;
                gpus += worker.toObject().value("gpus"_L1).toInt();
            }
        }
        m_status->setText(tr("%1 of %n worker(s) online, %2 GPUs", nullptr, int(workers.size()))
                              .arg(online).arg(gpus));
        emit refreshed();
    });
}

} // namespace ddl::desktop
