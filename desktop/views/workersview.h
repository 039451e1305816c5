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

class WorkerModel;

// The workers screen: the machines of the pool, refreshed while it is shown.
class WorkersView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int RefreshMs = 5000;

    explicit WorkersView(QWidget *parent = nullptr);
    void setClient(ApiClient *client);
    WorkerModel *model() const { return m_model; }
    void refresh();

signals:
    void refreshed();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    QPointer<ApiClient> m_client;
    WorkerModel *m_model;
    QTableView *m_table;
    QLabel *m_status;
    QTimer m_timer;
    bool m_busy = false;
};

} // namespace ddl::desktop
