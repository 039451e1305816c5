#include "workersview.h"

#include "api/apiclient.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "models/workermodel.h"
#include "views/ledgerpanel.h"
#include "views/utilisationchartsview.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

WorkersView::WorkersView(QWidget *parent)
    : QWidget(parent)
    , m_model(new WorkerModel(this))
    , m_table(new QTableView(this))
    , m_status(new QLabel(this))
    , m_charts(new UtilisationChartsView(this))
    , m_ledger(new LedgerPanel(this))
{
    m_table->setObjectName(u"workerTable"_s);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_charts->setObjectName(u"workerUtilisation"_s);
    m_charts->setLines({}, tr("Select a worker to see its CPU, memory and GPU use."), {});
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_charts);
    splitter->addWidget(m_ledger);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_status);
    m_timer.setInterval(RefreshMs);
    connect(&m_timer, &QTimer::timeout, this, &WorkersView::refresh);
    connect(m_table->selectionModel(),
            &QItemSelectionModel::currentRowChanged,
            this,
            &WorkersView::refreshUtilisation);
}

void WorkersView::setClient(ApiClient *client)
{
    m_client = client;
    m_ledger->setClient(client);
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
        refreshUtilisation();
    });
}

QString WorkersView::selectedWorkerId() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? current.siblingAtColumn(0).data(WorkerModel::IdRole).toString()
                             : QString();
}

void WorkersView::refreshUtilisation()
{
    const QString id = selectedWorkerId();
    m_ledger->showWorker(id);
    if (!m_client || m_utilisationBusy || id.isEmpty())
        return;
    m_utilisationBusy = true;
    whenFinished(
        m_client->workerUtilisation(id), this, [this, id](const Result<ApiResponse> &result) {
            m_utilisationBusy = false;
            if (id != selectedWorkerId()) {
                refreshUtilisation(); // another worker was selected meanwhile
                return;
            }
            if (!result) {
                m_charts->setStatus(
                    result.error().is(ErrorCode::NotFound)
                        ? tr("The server has no utilisation of this worker (it "
                             "is older than this client, or the worker was removed).")
                        : ErrorText::describe(result.error()));
                emit utilisationRefreshed();
                return;
            }
            m_charts->setStatus({});
            const WorkerUtilisation worker = WorkerUtilisation::fromJson(result->json());
            m_charts->setLines({{worker.name, worker.samples}},
                               tr("No samples of %1 yet: a worker reports its CPU, memory and GPU "
                                  "use every few seconds while it is online.")
                                   .arg(worker.name),
                               worker.gpus > 0 ? tr("%1 reports no GPU readings (no nvidia-smi, or "
                                                    "GPUs declared with --gpus).")
                                                     .arg(worker.name)
                                               : tr("%1 reports no GPU.").arg(worker.name));
            emit utilisationRefreshed();
        });
}

} // namespace ddl::desktop
