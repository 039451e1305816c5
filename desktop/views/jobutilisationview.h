#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

class UtilisationChartsView;

// The job page's Utilisation tab: CPU, memory and GPU use of each task of the job's current
// attempt over time, as its workers reported them. Reads GET /v1/jobs/<uuid>/utilisation when
// shown and every RefreshMs while the job runs (and once more when it ended), never waiting
// on the GUI thread.
class JobUtilisationView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int RefreshMs = 5000;

    JobUtilisationView(ApiClient *client, const QString &uuid, QWidget *parent = nullptr);

    UtilisationChartsView *charts() const { return m_charts; }
    // The job's state as its page last read it: waiting says why there is nothing yet, a final
    // state stops the refresh after one last read.
    void setJobState(const QString &state);
    void refresh();

signals:
    // An answer was read and shown (or its error).
    void refreshed();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void updateTimer();

    QPointer<ApiClient> m_client;
    QString m_uuid;
    QString m_state;
    UtilisationChartsView *m_charts;
    QTimer m_timer;
    bool m_busy = false;
    bool m_finalRead = false; // read once after the job ended: nothing changes any more
};

} // namespace ddl::desktop
