#include "ledgerpanel.h"

#include "api/apiclient.h"
#include "core/errortext.h"
#include "core/requestcallback.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

LedgerPanel::LedgerPanel(QWidget *parent)
    : QWidget(parent)
    , m_worker(new QLabel(this))
    , m_owner(new QLabel(this))
{
    m_worker->setObjectName(u"workerLedger"_s);
    m_owner->setObjectName(u"ownerLedger"_s);
    for (QLabel *label : {m_worker, m_owner}) {
        label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        label->setWordWrap(true);
    }
    m_worker->setText(tr("Select a worker to see what it gave."));
    auto *layout = new QHBoxLayout(this);
    layout->addWidget(m_worker, 1);
    layout->addWidget(m_owner, 1);
}

void LedgerPanel::setClient(ApiClient *client)
{
    m_client = client;
    ++m_generation;
    m_workerBusy = false;
    m_ownerBusy = false;
    m_worker->clear();
    m_owner->clear();
}

QString LedgerPanel::workerText() const
{
    return m_worker->text();
}

QString LedgerPanel::ownerText() const
{
    return m_owner->text();
}

QString LedgerPanel::describe(const LedgerTotals &totals)
{
    const QLocale locale;
    QStringList lines;
    lines << tr("GPU-hours given: %1").arg(locale.toString(totals.gpuHours(), 'f', 3))
          << tr("CPU-hours given: %1 (CPU time used: %2 h)")
                 .arg(locale.toString(totals.cpuCoreHours(), 'f', 3),
                      locale.toString(totals.cpuSecondsMeasured / 3600.0, 'f', 3))
          << tr("Tasks run: %1 (%2 succeeded, %3 failed)")
                 .arg(totals.tasksRun)
                 .arg(totals.tasksSucceeded)
                 .arg(totals.tasksFailed)
          << tr("Jobs run: %1").arg(totals.jobs) << tr("Preemptions: %1").arg(totals.preemptions)
          << tr("Downloaded: %1").arg(locale.formattedDataSize(totals.bytesDownloaded))
          << tr("Uploaded: %1").arg(locale.formattedDataSize(totals.bytesUploaded));
    return lines.join(u'\n');
}

void LedgerPanel::showWorker(const QString &workerId)
{
    m_workerId = workerId;
    readWorker();
    readOwner();
}

void LedgerPanel::finishOne()
{
    if (!m_workerBusy && !m_ownerBusy)
        emit refreshed();
}

void LedgerPanel::readWorker()
{
    if (!m_client || m_workerBusy)
        return;
    if (m_workerId.isEmpty()) {
        m_worker->setText(tr("Select a worker to see what it gave."));
        return;
    }
    m_workerBusy = true;
    const QString id = m_workerId;
    const int generation = m_generation;
    whenFinished(m_client->workerLedger(id),
                 this,
                 [this, id, generation](const Result<ApiResponse> &result) {
                     if (generation != m_generation)
                         return; // read for the account before the last sign-in
                     m_workerBusy = false;
                     if (id != m_workerId) {
                         readWorker(); // another worker was selected meanwhile
                         return;
                     }
                     if (!result) {
                         m_worker->setText(
                             result.error().is(ErrorCode::NotFound)
                                 ? tr("Only a worker's owner sees what it gave, and this "
                                      "worker is not yours.")
                                 : ErrorText::describe(result.error()));
                     } else {
                         const WorkerLedger ledger = WorkerLedger::fromJson(result->json());
                         m_worker->setText(tr("%1 gave:").arg(ledger.name) + u'\n' +
                                           describe(ledger.totals));
                     }
                     finishOne();
                 });
}

void LedgerPanel::readOwner()
{
    if (!m_client || m_ownerBusy)
        return;
    m_ownerBusy = true;
    const int generation = m_generation;
    whenFinished(
        m_client->ownerLedger(), this, [this, generation](const Result<ApiResponse> &result) {
            if (generation != m_generation)
                return; // read for the account before the last sign-in
            m_ownerBusy = false;
            if (!result) {
                m_owner->setText(result.error().is(ErrorCode::NotFound)
                                     ? tr("This server keeps no contribution ledger (it is older "
                                          "than this client).")
                                     : ErrorText::describe(result.error()));
            } else {
                const OwnerLedger ledger = OwnerLedger::fromJson(result->json());
                m_owner->setText(
                    ledger.workers.isEmpty()
                        ? tr("You own no workers. A worker is yours when it enrolled with a token "
                             "made for you (ddl-server token create --owner).")
                        : tr("Your %n worker(s) gave:", nullptr, int(ledger.workers.size())) +
                              u'\n' + describe(ledger.total));
            }
            finishOne();
        });
}

} // namespace ddl::desktop
