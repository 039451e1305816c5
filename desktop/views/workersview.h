#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QTableView;

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

class LedgerPanel;
class UtilisationChartsView;
class WorkerModel;

// The workers screen: the machines of the pool, refreshed while it is shown, and the selected
// worker's CPU, memory and GPU use over time (the last day at most), with its ledger.
class WorkersView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int RefreshMs = 5000;

    explicit WorkersView(QWidget *parent = nullptr);
    void setClient(ApiClient *client);
    WorkerModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    UtilisationChartsView *charts() const { return m_charts; }
    LedgerPanel *ledger() const { return m_ledger; }
    void refresh();

signals:
    void refreshed();
    // The selected worker's utilisation was read and shown (or its error).
    void utilisationRefreshed();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    QString selectedWorkerId() const;
    void refreshUtilisation();

    QPointer<ApiClient> m_client;
    WorkerModel *m_model;
    QTableView *m_table;
    QLabel *m_status;
    UtilisationChartsView *m_charts;
    LedgerPanel *m_ledger;
    QTimer m_timer;
    bool m_busy = false;
    bool m_utilisationBusy = false;
};

} // namespace ddl::desktop
