#pragma once

#include "wire/contributionledger.h"

#include <QPointer>
#include <QWidget>

class QLabel;

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

// What a worker gave the pool (its contribution ledger, docs/owners.md) beside the signed-in
// user's workers summed: GPU-hours, CPU-hours, tasks and jobs, bytes, preemptions. Read from the
// server without blocking; only a worker's owner is shown its ledger.
class LedgerPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LedgerPanel(QWidget *parent = nullptr);
    // A new client or a new sign-in on the same one: what the last account read is cleared, and
    // answers still on their way for it are dropped.
    void setClient(ApiClient *client);
    // Reads the ledger of this worker (empty: none selected) and the owner's totals again.
    void showWorker(const QString &workerId);

    QString workerText() const;
    QString ownerText() const;

    // The ledger as the panel words it (one line per figure).
    static QString describe(const LedgerTotals &totals);

signals:
    // Both reads ended, shown or their errors.
    void refreshed();

private:
    void readWorker();
    void readOwner();
    void finishOne();

    QPointer<ApiClient> m_client;
    QLabel *m_worker;
    QLabel *m_owner;
    QString m_workerId;
    bool m_workerBusy = false;
    bool m_ownerBusy = false;
    int m_generation = 0; // setClient() counts up; an answer for an older one is dropped
};

} // namespace ddl::desktop
