#pragma once

#include <QMap>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

// The home page, as OpenPAI's portal opens: the cluster (workers online, GPUs in use and free),
// the user's jobs by state (a click shows them in the job list), and the user's waiting jobs
// with why each waits and its place in the queue. Asked of the server while it is shown.
class HomeView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int RefreshMs = 5000;
    static constexpr int WaitingShown = 20;

    explicit HomeView(QWidget *parent = nullptr);
    void setClient(ApiClient *client);
    void refresh();

    QString clusterText() const;
    // The count shown for a state (WAITING, ...); -1 before the server answered.
    int jobCount(const QString &state) const { return m_counts.value(state, -1); }
    QTreeWidget *waitingList() const { return m_waiting; }

signals:
    void refreshed();
    void openRequested(const QString &uuid);
    // Show the job list filtered to this state.
    void stateRequested(const QString &state);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void showCounts();
    void answerArrived();

    QPointer<ApiClient> m_client;
    QLabel *m_clusterTitle;
    QLabel *m_cluster;
    QLabel *m_jobsTitle;
    QMap<QString, QPushButton *> m_stateButtons;
    QLabel *m_waitingTitle;
    QTreeWidget *m_waiting;
    QMap<QString, int> m_counts;
    QTimer m_timer;
    int m_pending = 0; // answers still to come in this round
};

} // namespace ddl::desktop
